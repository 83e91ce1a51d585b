package io.millrace.core.flow;

import java.util.List;

/**
 * Runs its tasks at the same time, at most {@code concurrent} at once (0: all). A failure starts no new task;
 * those running finish first.
 */
public record Parallel(String id, TaskOptions options, int concurrent, List<TaskDef> tasks, List<TaskDef> errors,
        List<TaskDef> finallyTasks) implements Flowable {

    public Parallel {
        tasks = List.copyOf(tasks);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
    }

    @Override
    public String type() {
        return TaskTypes.PARALLEL;
    }

    @Override
    public List<TaskDef> mainTasks() {
        return tasks;
    }
}
