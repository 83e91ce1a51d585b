package io.millrace.core.flow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One task's YAML while it is parsed: reads its properties, remembers which were read, and reports each problem
 * with where it is ({@code tasks[1].tasks[0] (task 'x')}).
 */
final class TaskNode {
    static final ObjectMapper YAML = FlowParser.YAML;

    final JsonNode node;
    final String path;
    final String where;
    final int depth;
    final TaskTreeParser parser;
    private final Set<String> read = new HashSet<>();

    TaskNode(JsonNode node, String path, String where, int depth, TaskTreeParser parser) {
        this.node = node;
        this.path = path;
        this.where = where;
        this.depth = depth;
        this.parser = parser;
    }

    void problem(String problem) {
        parser.problems.add(problem);
    }

    boolean has(String name) {
        read.add(name);
        return node.has(name) && !node.get(name).isNull();
    }

    /** The property's YAML as it is, or null when absent or null. */
    JsonNode get(String name) {
        read.add(name);
        JsonNode value = node.get(name);
        return value == null || value.isNull() ? null : value;
    }

    /** The raw value as plain maps, lists and scalars, or null. */
    Object raw(String name) {
        read.add(name);
        JsonNode value = node.get(name);
        return value == null || value.isNull() ? null : YAML.convertValue(value, Object.class);
    }

    /** A scalar read as text (numbers and booleans too), or null when absent. */
    String text(String name) {
        read.add(name);
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isValueNode()) {
            problem("Expected '" + name + "' at " + where + " to be a string, but found " + kind(value));
            return null;
        }
        return value.asText();
    }

    String requiredText(String name) {
        String value = text(name);
        if (value == null && !node.has(name)) {
            problem("Missing required property '" + name + "' at " + where);
        }
        return value;
    }

    boolean bool(String name) {
        read.add(name);
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            return false;
        }
        if (value.isBoolean() || value.isTextual() && Set.of("true", "false").contains(value.asText())) {
            return value.asBoolean();
        }
        problem("Expected '" + name + "' at " + where + " to be true or false, but found " + value);
        return false;
    }

    /** A whole number of at least 0, or {@code fallback} when absent. */
    int count(String name, int fallback) {
        read.add(name);
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (value.canConvertToInt() && value.isIntegralNumber() && value.asInt() >= 0) {
            return value.asInt();
        }
        problem("Expected '" + name + "' at " + where + " to be a whole number of at least 0, but found " + value);
        return fallback;
    }

    /** A list of tasks one level deeper; empty when absent and not required. */
    List<TaskDef> tasks(String name, boolean required) {
        read.add(name);
        return parser.tasks(node.get(name), path + "." + name, where + "." + name, required, depth + 1);
    }

    /** The properties present that nothing read. */
    List<String> unread() {
        var unread = new java.util.ArrayList<String>();
        node.fieldNames().forEachRemaining(name -> {
            if (!read.contains(name)) {
                unread.add(name);
            }
        });
        return unread;
    }

    static String kind(JsonNode node) {
        return node == null || node.isMissingNode() ? "nothing" : node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
