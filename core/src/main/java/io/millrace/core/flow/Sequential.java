package io.millrace.core.flow;

import java.util.List;

/** Runs its tasks one after the other; the first failure stops them. The flow's root is one of these. */
public record Sequential(String id, TaskOptions options, List<TaskDef> tasks, List<TaskDef> errors,
        List<TaskDef> finallyTasks) implements Flowable {

    public Sequential {
        tasks = List.copyOf(tasks);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
    }

    @Override
    public String type() {
        return TaskTypes.SEQUENTIAL;
    }

    @Override
    public List<TaskDef> mainTasks() {
        return tasks;
    }
}
