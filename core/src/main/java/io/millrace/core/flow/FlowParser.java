package io.millrace.core.flow;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses and validates flow YAML in Kestra's core syntax. Every problem found is reported with the
 * path where it is ({@code tasks[1].type}), not only the first one.
 */
public final class FlowParser {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern ID = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9._-]*$");
    private static final Pattern NAMESPACE = Pattern.compile("^[a-z0-9][a-z0-9._-]*$");
    private static final Set<String> ROOT_PROPERTIES =
            Set.of("id", "namespace", "description", "labels", "inputs", "tasks", "errors", "finally", "outputs");

    /** Parses a flow; the revision is 0 until the flow is stored. */
    public Flow parse(String yaml) throws FlowValidationException {
        JsonNode root = readTree(yaml);
        var problems = new ArrayList<String>();
        if (!root.isObject()) {
            throw new FlowValidationException(List.of("Expected the flow to be a YAML mapping, but found " + kind(root)));
        }
        root.fieldNames().forEachRemaining(name -> {
            if (!ROOT_PROPERTIES.contains(name)) {
                problems.add("Unknown or unsupported property '" + name + "' at the root of the flow");
            }
        });
        String id = requiredText(root, "id", "", problems);
        String namespace = requiredText(root, "namespace", "", problems);
        if (id != null && !ID.matcher(id).matches()) {
            problems.add("Expected 'id' to match " + ID.pattern() + ", but was '" + id + "'");
        }
        if (namespace != null && !NAMESPACE.matcher(namespace).matches()) {
            problems.add("Expected 'namespace' to match " + NAMESPACE.pattern() + ", but was '" + namespace + "'");
        }
        var taskIds = new HashSet<String>();
        List<TaskDef> tasks = tasks(root, "tasks", true, taskIds, problems);
        List<TaskDef> errors = tasks(root, "errors", false, taskIds, problems);
        List<TaskDef> finallyTasks = tasks(root, "finally", false, taskIds, problems);
        List<InputDef> inputs = inputs(root.path("inputs"), problems);
        List<OutputDef> outputs = outputs(root.path("outputs"), problems);
        Map<String, String> labels = labels(root.path("labels"), problems);
        if (!problems.isEmpty()) {
            throw new FlowValidationException(problems);
        }
        return new Flow(namespace, id, 0, labels, inputs, tasks, errors, finallyTasks, outputs, yaml);
    }

    private static JsonNode readTree(String yaml) throws FlowValidationException {
        if (yaml == null || yaml.isBlank()) {
            throw new FlowValidationException(List.of("Expected a flow in YAML, but the body is empty"));
        }
        try {
            return YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            var location = e.getLocation();
            String where = location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
            throw new FlowValidationException(List.of("Invalid YAML" + where + ": " + e.getOriginalMessage()));
        }
    }

    private static List<TaskDef> tasks(JsonNode root, String field, boolean required, Set<String> ids, List<String> problems) {
        JsonNode node = root.path(field);
        if (node.isMissingNode() || node.isNull()) {
            if (required) {
                problems.add("Expected '" + field + "' to list at least one task, but it is missing");
            }
            return List.of();
        }
        if (!node.isArray() || (required && node.isEmpty())) {
            problems.add("Expected '" + field + "' to be a non-empty list of tasks, but found " + kind(node));
            return List.of();
        }
        var result = new ArrayList<TaskDef>();
        for (int i = 0; i < node.size(); i++) {
            TaskDef task = task(node.get(i), field + "[" + i + "]", ids, problems);
            if (task != null) {
                result.add(task);
            }
        }
        return result;
    }

    private static TaskDef task(JsonNode node, String path, Set<String> ids, List<String> problems) {
        if (!node.isObject()) {
            problems.add("Expected " + path + " to be a task mapping, but found " + kind(node));
            return null;
        }
        int before = problems.size();
        String id = requiredText(node, "id", path + ".", problems);
        String where = id == null ? path : path + " (task '" + id + "')";
        if (id != null && !ID.matcher(id).matches()) {
            problems.add("Expected the id of " + path + " to match " + ID.pattern() + ", but was '" + id + "'");
        }
        if (id != null && !ids.add(id)) {
            problems.add("Expected task ids to be unique, but '" + id + "' at " + path + " is used twice");
        }
        String type = requiredText(node, "type", path + ".", problems);
        String canonical = type == null ? null : TaskTypes.canonical(type).orElse(null);
        if (type != null && canonical == null) {
            problems.add("Unknown task type '" + type + "' at " + where + ".type; supported: "
                    + String.join(", ", new java.util.TreeSet<>(TaskTypes.RUNNABLE)) + " (aliases: "
                    + String.join(", ", new java.util.TreeSet<>(TaskTypes.aliases())) + ")");
        }
        var properties = new LinkedHashMap<String, Object>();
        if (canonical != null) {
            TaskTypes.TypeSpec spec = TaskTypes.spec(canonical);
            node.fieldNames().forEachRemaining(name -> {
                if (TaskTypes.COMMON_PROPERTIES.contains(name)) {
                    return;
                }
                if (spec.accepts(name)) {
                    properties.put(name, YAML.convertValue(node.get(name), Object.class));
                } else {
                    problems.add("Unknown or unsupported property '" + name + "' at " + where);
                }
            });
            spec.required().stream()
                    .filter(p -> !node.hasNonNull(p))
                    .forEach(p -> problems.add("Missing required property '" + p + "' at " + where));
            timeout(node.path(TaskTypes.TIMEOUT), where, problems);
        }
        String workerGroup = workerGroup(node.path("workerGroup"), where, problems);
        if (problems.size() > before) {
            return null;
        }
        return new TaskDef(id, canonical, workerGroup, node.path("disabled").asBoolean(false), properties);
    }

    private static void timeout(JsonNode node, String where, List<String> problems) {
        if (node.isMissingNode()) {
            return;
        }
        if (node.isTextual()) {
            try {
                Duration timeout = Duration.parse(node.asText());
                if (!timeout.isNegative() && !timeout.isZero()) {
                    return;
                }
            } catch (DateTimeParseException e) {
                // reported below
            }
        }
        problems.add("Expected timeout at " + where + " to be a positive ISO-8601 duration such as PT5M, but found " + node);
    }

    private static String workerGroup(JsonNode node, String where, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return TaskDef.DEFAULT_WORKER_GROUP;
        }
        String key = node.isObject() ? node.path("key").asText(null) : node.isTextual() ? node.asText() : null;
        if (key == null || !ID.matcher(key).matches()) {
            problems.add("Expected workerGroup at " + where + " to be {key: <name>} with a name matching "
                    + ID.pattern() + ", but found " + node);
            return null;
        }
        return key;
    }

    private static List<InputDef> inputs(JsonNode node, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            problems.add("Expected 'inputs' to be a list, but found " + kind(node));
            return List.of();
        }
        var result = new ArrayList<InputDef>();
        var ids = new HashSet<String>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode input = node.get(i);
            String path = "inputs[" + i + "]";
            String id = requiredText(input, "id", path + ".", problems);
            String typeName = requiredText(input, "type", path + ".", problems);
            InputType type = null;
            if (typeName != null) {
                try {
                    type = InputType.valueOf(typeName.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    problems.add("Unknown input type '" + typeName + "' at " + path + ".type");
                }
            }
            if (id != null && !ids.add(id)) {
                problems.add("Expected input ids to be unique, but '" + id + "' is declared twice");
            }
            if (id != null && type != null) {
                Object defaults = input.has("defaults") ? YAML.convertValue(input.get("defaults"), Object.class) : null;
                result.add(new InputDef(id, type, input.path("required").asBoolean(true), defaults,
                        input.path("description").asText(null)));
            }
        }
        return result;
    }

    private static List<OutputDef> outputs(JsonNode node, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            problems.add("Expected 'outputs' to be a list, but found " + kind(node));
            return List.of();
        }
        var result = new ArrayList<OutputDef>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode output = node.get(i);
            String path = "outputs[" + i + "]";
            String id = requiredText(output, "id", path + ".", problems);
            if (!output.has("value")) {
                problems.add("Missing required property 'value' at " + path);
            } else if (id != null) {
                result.add(new OutputDef(id, output.path("type").asText("STRING"),
                        YAML.convertValue(output.get("value"), Object.class)));
            }
        }
        return result;
    }

    private static Map<String, String> labels(JsonNode node, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return Map.of();
        }
        var labels = new LinkedHashMap<String, String>();
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        } else if (node.isArray()) {
            node.forEach(l -> labels.put(l.path("key").asText(), l.path("value").asText()));
        } else {
            problems.add("Expected 'labels' to be a mapping, but found " + kind(node));
        }
        return labels;
    }

    private static String requiredText(JsonNode node, String field, String prefix, List<String> problems) {
        JsonNode value = node.path(field);
        if (!value.isValueNode() || value.isNull() || value.asText().isBlank()) {
            problems.add("Missing required property '" + prefix + field + "'");
            return null;
        }
        return value.asText();
    }

    private static String kind(JsonNode node) {
        return node.isMissingNode() ? "nothing" : node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
