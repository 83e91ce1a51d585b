package io.millrace.core.flow;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A parsed, validated flow at one revision. {@code source} is the YAML it was parsed from, kept so
 * the flow can be stored and re-parsed anywhere.
 */
public record Flow(
        String namespace,
        String id,
        int revision,
        Map<String, String> labels,
        List<InputDef> inputs,
        List<TaskDef> tasks,
        List<TaskDef> errors,
        List<TaskDef> finallyTasks,
        List<OutputDef> outputs,
        String source) {

    public Flow {
        labels = Map.copyOf(labels);
        inputs = List.copyOf(inputs);
        tasks = List.copyOf(tasks);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
        outputs = List.copyOf(outputs);
    }

    public String key() {
        return key(namespace, id);
    }

    public static String key(String namespace, String id) {
        return namespace + "/" + id;
    }

    public Flow withRevision(int newRevision) {
        return new Flow(namespace, id, newRevision, labels, inputs, tasks, errors, finallyTasks, outputs, source);
    }

    /** An execution's labels: the flow's, overridden by those given when it was started. */
    public Map<String, String> labelsWith(Map<String, String> given) {
        var merged = new LinkedHashMap<>(labels);
        merged.putAll(given);
        return merged;
    }

    /** Every task declared anywhere in the flow. */
    public Stream<TaskDef> allTasks() {
        return Stream.of(tasks, errors, finallyTasks).flatMap(List::stream);
    }

    public Optional<TaskDef> task(String taskId) {
        return allTasks().filter(t -> t.id().equals(taskId)).findFirst();
    }
}
