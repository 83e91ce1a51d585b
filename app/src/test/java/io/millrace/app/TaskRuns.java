package io.millrace.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.millrace.serdes.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An execution's {@code taskRunList} (the REST API's JSON) read the way Kestra's tests read theirs:
 * the first run of a task id, a run by task id and value path, and the outputs tree.
 */
final class TaskRuns {
    private final List<JsonNode> list = new ArrayList<>();
    private final Map<String, JsonNode> byRunId = new HashMap<>();
    private final Set<String> loopTaskIds;

    /** @param loopTaskIds ids of the looping tasks (ForEach...), whose child runs carry an iteration value */
    TaskRuns(JsonNode execution, Set<String> loopTaskIds) {
        execution.path("taskRunList").forEach(run -> {
            list.add(run);
            byRunId.put(run.path("id").asText(), run);
        });
        this.loopTaskIds = loopTaskIds;
    }

    int size() {
        return list.size();
    }

    JsonNode get(int index) {
        return list.get(index);
    }

    /** Kestra's {@code findTaskRunsByTaskId(id).getFirst()}. */
    Optional<JsonNode> first(String taskId) {
        return list.stream().filter(run -> taskId.equals(run.path("taskId").asText())).findFirst();
    }

    long count(String taskId) {
        return list.stream().filter(run -> taskId.equals(run.path("taskId").asText())).count();
    }

    /** Kestra's {@code findTaskRunByTaskIdAndValue(id, values)}. */
    Optional<JsonNode> find(String taskId, List<String> valuePath) {
        return list.stream().filter(run -> taskId.equals(run.path("taskId").asText()) && valuePath(run).equals(valuePath))
                .findFirst();
    }

    /**
     * The {@code taskrun.value} of each loop iteration enclosing the run (itself included), outermost first: the
     * value of every run, on the path from the root to this one, whose parent is a looping task. Kestra sets a
     * value only on a loop's direct children; asking for the parent to be a loop gives the same path on an
     * engine that also copies the value onto deeper runs (inside a Switch or Sequential of the iteration).
     */
    List<String> valuePath(JsonNode run) {
        var path = new ArrayList<String>();
        for (JsonNode current = run; current != null; current = parent(current)) {
            JsonNode parent = parent(current);
            if (parent != null && loopTaskIds.contains(parent.path("taskId").asText()) && current.hasNonNull("value")) {
                path.addFirst(current.path("value").asText());
            }
        }
        return path;
    }

    /** Kestra's {@code execution.outputs()}: each run's outputs under its task id, then its value path. */
    ObjectNode outputsTree() {
        ObjectNode tree = Json.MAPPER.createObjectNode();
        for (JsonNode run : list) {
            if (!run.path("outputs").isObject()) {
                continue;
            }
            ObjectNode node = tree.withObjectProperty(run.path("taskId").asText());
            for (String value : valuePath(run)) {
                node = node.withObjectProperty(value);
            }
            merge(node, (ObjectNode) run.path("outputs"));
        }
        return tree;
    }

    private JsonNode parent(JsonNode run) {
        return run.hasNonNull("parentTaskRunId") ? byRunId.get(run.path("parentTaskRunId").asText()) : null;
    }

    private static void merge(ObjectNode into, ObjectNode from) {
        from.properties().forEach(e -> {
            if (e.getValue().isObject() && into.path(e.getKey()).isObject()) {
                merge((ObjectNode) into.get(e.getKey()), (ObjectNode) e.getValue());
            } else {
                into.set(e.getKey(), e.getValue());
            }
        });
    }
}
