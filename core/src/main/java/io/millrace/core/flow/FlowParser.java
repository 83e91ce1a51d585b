package io.millrace.core.flow;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
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
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern ID = TaskTreeParser.ID;
    private static final Pattern NAMESPACE = Pattern.compile("^[a-z0-9][a-z0-9._-]*$");
    private static final Set<String> ROOT_PROPERTIES = Set.of("id", "namespace", "description", "labels", "inputs",
            "variables", "tasks", "errors", "finally", "outputs", "pluginDefaults", "taskDefaults", "disabled", "triggers",
            "retry", "concurrency");

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
        JsonNode defaultsNode = root.has("pluginDefaults") ? root.get("pluginDefaults") : root.get("taskDefaults");
        JsonNode retryNode = root.get("retry");
        RetryPolicy retry = retryNode == null || retryNode.isNull() ? null : RetryParser.parse(retryNode, "retry", problems);
        var tree = new TaskTreeParser(problems, PluginDefaults.parse(defaultsNode, problems), retry);
        List<TaskDef> tasks = tree.tasks(root.get("tasks"), "tasks", "tasks", true, 0);
        List<TaskDef> errors = tree.tasks(root.get("errors"), "errors", "errors", false, 0);
        List<TaskDef> finallyTasks = tree.tasks(root.get("finally"), "finally", "finally", false, 0);
        List<InputDef> inputs = inputs(root.path("inputs"), "inputs", problems);
        List<OutputDef> outputs = outputs(root.path("outputs"), problems);
        Map<String, String> labels = labels(root.path("labels"), problems);
        Map<String, Object> variables = variables(root.path("variables"), problems);
        List<TriggerDef> triggers = new TriggerParser(problems).triggers(root.get("triggers"));
        boolean disabled = root.path("disabled").asBoolean(false);
        Concurrency concurrency = Concurrency.parse(root.get("concurrency"), problems);
        if (!problems.isEmpty()) {
            throw new FlowValidationException(problems);
        }
        return new Flow(namespace, id, 0, labels, inputs, tasks, errors, finallyTasks, outputs, variables, triggers,
                disabled, yaml, null, concurrency);
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

    @SuppressWarnings("unchecked")
    private static Map<String, Object> variables(JsonNode node, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            problems.add("Expected 'variables' to be a mapping, but found " + kind(node));
            return Map.of();
        }
        return YAML.convertValue(node, Map.class);
    }

    /** Inputs declared at {@code where} (a flow's {@code inputs}, a Pause's {@code onResume}). */
    static List<InputDef> inputs(JsonNode node, String where, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            problems.add("Expected '" + where + "' to be a list, but found " + kind(node));
            return List.of();
        }
        var result = new ArrayList<InputDef>();
        var ids = new HashSet<String>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode input = node.get(i);
            String path = where + "[" + i + "]";
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
                        input.path("description").asText(null),
                        type.hasChoices() ? choices(input, path, type, defaults, problems) : null,
                        input.path("allowCustomValue").asBoolean(false)));
            }
        }
        return result;
    }

    /**
     * A SELECT, ENUM or MULTISELECT input's {@code values}: a list of one or more scalars, as texts; null when it
     * declares none (it then takes any value, as flows stored before the values were checked do). Its {@code defaults}
     * must be among them unless it allows custom values.
     */
    private static List<String> choices(JsonNode input, String path, InputType type, Object defaults,
            List<String> problems) {
        JsonNode values = input.path("values");
        if (values.isMissingNode() || values.isNull()) {
            return null;
        }
        if (!values.isArray() || values.isEmpty() || !values.valueStream().allMatch(JsonNode::isValueNode)) {
            problems.add("Expected '" + path + ".values' to be a list of the values a " + type + " input may take, but found "
                    + (values.isArray() && values.isEmpty() ? "an empty list" : kind(values)));
            return null;
        }
        List<String> choices = values.valueStream().map(JsonNode::asText).toList();
        List<?> chosen = defaults instanceof List<?> many ? many : defaults == null ? List.of() : List.of(defaults);
        if (!input.path("allowCustomValue").asBoolean(false)
                && !chosen.stream().map(String::valueOf).allMatch(choices::contains)) {
            problems.add("Expected '" + path + ".defaults' to be among its values " + choices + ", but was " + defaults);
        }
        return choices;
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

    static Map<String, String> labels(JsonNode node, List<String> problems) {
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

    static String kind(JsonNode node) {
        return node.isMissingNode() ? "nothing" : node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
