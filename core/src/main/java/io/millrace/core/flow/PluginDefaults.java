package io.millrace.core.flow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A flow's {@code pluginDefaults}: property values given to every task whose type is {@code type} or starts with it
 * (a package prefix). A task's own value wins over a default unless the default is {@code forced}; maps are merged
 * key by key. Applied to each task's YAML before it is parsed, so defaults are checked like written properties.
 */
final class PluginDefaults {
    private record Default(String type, ObjectNode values, boolean forced) {
    }

    private final List<Default> defaults;

    private PluginDefaults(List<Default> defaults) {
        this.defaults = defaults;
    }

    static PluginDefaults parse(JsonNode node, List<String> problems) {
        var defaults = new ArrayList<Default>();
        if (node == null || node.isMissingNode() || node.isNull()) {
            return new PluginDefaults(defaults);
        }
        if (!node.isArray()) {
            problems.add("Expected 'pluginDefaults' to be a list, but found " + TaskNode.kind(node));
            return new PluginDefaults(defaults);
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode one = node.get(i);
            String where = "pluginDefaults[" + i + "]";
            String type = one.path("type").asText("");
            if (type.isBlank()) {
                problems.add("Missing required property '" + where + ".type'");
            } else if (!one.path("values").isObject()) {
                problems.add("Expected " + where + ".values to be a mapping, but found " + TaskNode.kind(one.get("values")));
            } else {
                defaults.add(new Default(type, (ObjectNode) one.get("values"), one.path("forced").asBoolean(false)));
            }
        }
        return new PluginDefaults(defaults);
    }

    JsonNode apply(JsonNode task) {
        String type = task.path("type").asText("");
        String canonical = TaskTypes.canonical(type).orElse(type);
        ObjectNode result = null;
        for (Default d : defaults) {
            if (matches(d.type(), type) || matches(d.type(), canonical)) {
                if (result == null) {
                    result = task.deepCopy();
                }
                merge(result, d.values(), d.forced());
            }
        }
        return result == null ? task : result;
    }

    private static boolean matches(String defaultType, String type) {
        return type.equals(defaultType) || type.startsWith(defaultType.endsWith(".") ? defaultType : defaultType + ".");
    }

    private static void merge(ObjectNode target, ObjectNode values, boolean forced) {
        values.fields().forEachRemaining(e -> {
            JsonNode existing = target.get(e.getKey());
            if (existing instanceof ObjectNode mine && e.getValue() instanceof ObjectNode theirs) {
                merge(mine, theirs, forced);
            } else if (existing == null || existing.isNull() || forced) {
                target.set(e.getKey(), e.getValue().deepCopy());
            }
        });
    }
}
