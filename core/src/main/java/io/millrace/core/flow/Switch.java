package io.millrace.core.flow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders {@code value} and runs the tasks of the case whose key equals it, else {@code defaults}; with neither,
 * it fails. Its outputs: {@code value} (the rendered value) and {@code defaults} (whether the defaults ran).
 */
public record Switch(String id, TaskOptions options, String value, Map<String, List<TaskDef>> cases,
        List<TaskDef> defaults, List<TaskDef> errors, List<TaskDef> finallyTasks) implements Flowable {

    public Switch {
        var copy = new LinkedHashMap<String, List<TaskDef>>();
        cases.forEach((key, tasks) -> copy.put(key, List.copyOf(tasks)));
        cases = java.util.Collections.unmodifiableMap(copy);
        defaults = defaults == null ? null : List.copyOf(defaults);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
    }

    @Override
    public String type() {
        return TaskTypes.SWITCH;
    }

    @Override
    public List<TaskDef> mainTasks() {
        var all = new ArrayList<TaskDef>();
        cases.values().forEach(all::addAll);
        if (defaults != null) {
            all.addAll(defaults);
        }
        return all;
    }
}
