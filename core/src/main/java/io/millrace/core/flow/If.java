package io.millrace.core.flow;

import java.util.List;

/** Renders {@code condition} and runs {@code then} when it is true, {@code else} (may be empty) otherwise. */
public record If(String id, TaskOptions options, String condition, List<TaskDef> then, List<TaskDef> otherwise,
        List<TaskDef> errors, List<TaskDef> finallyTasks) implements Flowable {

    public If {
        then = List.copyOf(then);
        otherwise = List.copyOf(otherwise);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
    }

    @Override
    public String type() {
        return TaskTypes.IF;
    }

    @Override
    public List<TaskDef> mainTasks() {
        var all = new java.util.ArrayList<TaskDef>(then);
        all.addAll(otherwise);
        return all;
    }
}
