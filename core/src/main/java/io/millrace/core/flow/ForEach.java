package io.millrace.core.flow;

import java.util.List;

/**
 * Runs its tasks once per value. {@code values} is a list or a string rendering to a JSON array. Each iteration runs
 * its tasks one after the other, with the iteration's value as {@code taskrun.value}; at most {@code concurrencyLimit}
 * iterations run at once (0: all). The legacy EachParallel instead runs every task of every iteration at once
 * ({@code eachTaskApart}), at most {@code concurrencyLimit} of them.
 */
public record ForEach(String id, String type, TaskOptions options, Object values, int concurrencyLimit,
        boolean eachTaskApart, List<TaskDef> tasks, List<TaskDef> errors, List<TaskDef> finallyTasks) implements Flowable {

    public ForEach {
        tasks = List.copyOf(tasks);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
    }

    @Override
    public List<TaskDef> mainTasks() {
        return tasks;
    }
}
