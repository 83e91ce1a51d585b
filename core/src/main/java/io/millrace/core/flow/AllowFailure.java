package io.millrace.core.flow;

import java.util.List;

/** Runs its tasks one after the other, like {@link Sequential}, but a failure inside ends it WARNING. */
public record AllowFailure(String id, TaskOptions options, List<TaskDef> tasks, List<TaskDef> errors,
        List<TaskDef> finallyTasks) implements Flowable {

    public AllowFailure {
        tasks = List.copyOf(tasks);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
    }

    @Override
    public String type() {
        return TaskTypes.ALLOW_FAILURE;
    }

    @Override
    public List<TaskDef> mainTasks() {
        return tasks;
    }
}
