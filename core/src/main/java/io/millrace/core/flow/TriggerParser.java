package io.millrace.core.flow;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Parses a flow's {@code triggers}: each needs a unique {@code id} and a known {@code type}; its properties are
 * checked against the type's, and the values each type reads are checked here, so that a flow the API accepts is one
 * its triggers can run. Every problem is reported with its place ({@code triggers[0] (trigger 'kafka').topic}).
 */
final class TriggerParser {
    /** Kestra's limit on a webhook key. */
    static final int MAX_WEBHOOK_KEY = 256;
    /**
     * The shortest webhook key: the key is a webhook's only credential, and its path is open to anyone; 16 random
     * characters put guessing it out of reach.
     */
    public static final int MIN_WEBHOOK_KEY = 16;

    private final List<String> problems;

    TriggerParser(List<String> problems) {
        this.problems = problems;
    }

    List<TriggerDef> triggers(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            problems.add("Expected 'triggers' to be a list, but found " + FlowParser.kind(node));
            return List.of();
        }
        var triggers = new ArrayList<TriggerDef>();
        var ids = new HashSet<String>();
        for (int i = 0; i < node.size(); i++) {
            TriggerDef trigger = trigger(node.get(i), "triggers[" + i + "]");
            if (trigger != null && !ids.add(trigger.id())) {
                problems.add("Expected trigger ids to be unique, but '" + trigger.id() + "' is declared twice");
            } else if (trigger != null) {
                triggers.add(trigger);
            }
        }
        return triggers;
    }

    private TriggerDef trigger(JsonNode node, String path) {
        if (!node.isObject()) {
            problems.add("Expected " + path + " to be a mapping, but found " + FlowParser.kind(node));
            return null;
        }
        JsonNode idNode = node.path("id");
        String id = idNode.isValueNode() && !idNode.isNull() ? idNode.asText() : null;
        if (id == null || !TaskTreeParser.ID.matcher(id).matches()) {
            problems.add("Expected " + path + ".id to match " + TaskTreeParser.ID.pattern() + ", but was "
                    + (id == null ? "missing" : "'" + id + "'"));
            return null;
        }
        String where = path + " (trigger '" + id + "')";
        String written = node.path("type").asText(null);
        if (written == null) {
            problems.add("Missing required property 'type' at " + where);
            return null;
        }
        String type = TriggerTypes.canonical(written).orElse(null);
        if (type == null) {
            problems.add("Unknown trigger type '" + written + "' at " + where + ".type; known: "
                    + new TreeSet<>(TriggerTypes.SPECS.keySet()));
            return null;
        }
        TaskTypes.TypeSpec spec = TriggerTypes.SPECS.get(type);
        int before = problems.size();
        node.fieldNames().forEachRemaining(name -> {
            if (!TriggerTypes.COMMON.contains(name) && !spec.accepts(name)) {
                problems.add("Unknown or unsupported property '" + name + "' at " + where);
            }
        });
        spec.required().forEach(name -> {
            if (!node.hasNonNull(name)) {
                problems.add("Missing required property '" + name + "' at " + where);
            }
        });
        if (problems.size() > before) {
            return null;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> properties = FlowParser.YAML.convertValue(node, LinkedHashMap.class);
        properties.keySet().removeAll(List.of("id", "type", "disabled", "labels"));
        switch (type) {
            case TriggerTypes.KAFKA_REALTIME -> kafka(node, where);
            case TriggerTypes.KAFKA_BATCH -> {
                kafka(node, where);
                for (String duration : List.of("interval", "maxDuration", "pollDuration")) {
                    if (node.hasNonNull(duration)) {
                        try {
                            if (java.time.Duration.parse(node.path(duration).asText()).isNegative()) {
                                throw new java.time.format.DateTimeParseException("negative", node.path(duration).asText(), 0);
                            }
                        } catch (java.time.format.DateTimeParseException e) {
                            problems.add("Expected " + where + "." + duration + " to be an ISO-8601 duration such as PT30S");
                        }
                    }
                }
                if (node.has("maxRecords") && !(node.path("maxRecords").canConvertToInt() && node.path("maxRecords").asInt() > 0)) {
                    problems.add("Expected " + where + ".maxRecords to be a positive number");
                }
            }
            case TriggerTypes.WEBHOOK -> webhook(node, where);
            case TriggerTypes.SCHEDULE -> ScheduleSpec.read(properties, where, problems);
            case TriggerTypes.FLOW -> FlowTriggerSpec.read(properties, where, problems);
            default -> throw new IllegalStateException("Expected a check for trigger type " + type);
        }
        return new TriggerDef(id, type, node.path("disabled").asBoolean(false),
                FlowParser.labels(node.path("labels"), problems), properties);
    }

    private void kafka(JsonNode node, String where) {
        JsonNode properties = node.path("properties");
        if (!properties.isObject() || !properties.path("bootstrap.servers").isValueNode()) {
            problems.add("Expected " + where + ".properties to be a mapping with 'bootstrap.servers'");
        }
        text(node, "groupId", where);
        boolean topic = node.hasNonNull("topic");
        boolean pattern = node.hasNonNull("topicPattern");
        if (topic == pattern) {
            problems.add("Expected exactly one of 'topic' and 'topicPattern' at " + where);
        } else if (topic) {
            JsonNode topics = node.path("topic");
            boolean names = topics.isTextual() || topics.isArray() && !topics.isEmpty()
                    && java.util.stream.StreamSupport.stream(topics.spliterator(), false).allMatch(JsonNode::isTextual);
            if (!names) {
                problems.add("Expected " + where + ".topic to be a topic name or a list of them");
            }
        } else {
            try {
                Pattern.compile(node.path("topicPattern").asText());
            } catch (PatternSyntaxException e) {
                problems.add("Expected " + where + ".topicPattern to be a regular expression: " + e.getDescription());
            }
        }
        boolean avro = false;
        for (String name : List.of("keyDeserializer", "valueDeserializer")) {
            String serde = node.path(name).asText("STRING");
            if (!TriggerTypes.DESERIALIZERS.contains(serde.toUpperCase(Locale.ROOT))) {
                problems.add("Unsupported " + name + " '" + serde + "' at " + where + "; supported: "
                        + new TreeSet<>(TriggerTypes.DESERIALIZERS));
            }
            avro |= serde.equalsIgnoreCase("AVRO");
        }
        if (node.has("serdeProperties") && !node.path("serdeProperties").isObject()) {
            problems.add("Expected " + where + ".serdeProperties to be a mapping");
        } else if (avro) {
            schemaRegistry(node.path("serdeProperties"), where);
        }
        JsonNode onError = node.path("onSerdeError");
        if (!onError.isMissingNode()) {
            String kind = onError.path("type").asText("SKIPPED").toUpperCase(Locale.ROOT);
            if (!kind.equals("SKIPPED") && !kind.equals("DLQ")) {
                problems.add("Unsupported onSerdeError.type '" + kind + "' at " + where + "; supported: DLQ, SKIPPED");
            } else if (kind.equals("DLQ") && !onError.path("topic").isTextual()) {
                problems.add("Expected " + where + ".onSerdeError.topic, the dead-letter topic, with type DLQ");
            }
        }
        if (node.hasNonNull("since")) {
            try {
                OffsetDateTime.parse(node.path("since").asText());
            } catch (DateTimeParseException e) {
                problems.add("Expected " + where + ".since to be a date and time with an offset, such as "
                        + "2026-01-01T00:00:00Z, but was '" + node.path("since").asText() + "'");
            }
        }
    }

    /** AVRO reads each record's writer schema from the Confluent-compatible registry {@code serdeProperties} name. */
    private void schemaRegistry(JsonNode serde, String where) {
        String at = where + ".serdeProperties";
        JsonNode url = serde.path("schema.registry.url");
        if (!url.isTextual()) {
            problems.add("Expected " + at + " to name the schema registry of AVRO records as 'schema.registry.url'");
        } else if (!httpUrl(url.asText())) {
            problems.add("Expected " + at + ".schema.registry.url to be one http(s) URL, but was '" + url.asText() + "'");
        } else if (URI.create(url.asText()).getRawUserInfo() != null) {
            problems.add("Expected " + at + ".schema.registry.url without credentials: give them as basic.auth.user.info");
        }
        JsonNode userInfo = serde.path("basic.auth.user.info");
        if (!userInfo.isMissingNode() && !(userInfo.isTextual() && userInfo.asText().indexOf(':') > 0)) {
            problems.add("Expected " + at + ".basic.auth.user.info to be 'user:password'");
        }
        JsonNode source = serde.path("basic.auth.credentials.source");
        if (!source.isMissingNode() && !source.asText().equalsIgnoreCase("USER_INFO")) {
            problems.add("Unsupported basic.auth.credentials.source '" + source.asText() + "' at " + at
                    + "; supported: USER_INFO");
        }
    }

    private static boolean httpUrl(String text) {
        try {
            URI uri = new URI(text);
            return ("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                    && uri.getHost() != null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private void webhook(JsonNode node, String where) {
        String key = text(node, "key", where);
        if (key != null && (key.isBlank() || key.length() > MAX_WEBHOOK_KEY || key.contains("/"))) {
            problems.add("Expected " + where + ".key to be 1 to " + MAX_WEBHOOK_KEY + " characters without '/'");
        } else if (key != null && key.length() < MIN_WEBHOOK_KEY) {
            // the key's length only, never the key: the answer and the log may be read by others
            problems.add("Expected " + where + ".key to have at least " + MIN_WEBHOOK_KEY + " characters (it is the"
                    + " webhook's only credential; e.g. openssl rand -hex 16), but it has " + key.length());
        }
        for (String flag : List.of("wait", "returnOutputs")) {
            if (node.has(flag) && !node.path(flag).isBoolean()) {
                problems.add("Expected " + where + "." + flag + " to be true or false");
            }
        }
        if (node.has("inputs") && !node.path("inputs").isObject()) {
            problems.add("Expected " + where + ".inputs to be a mapping");
        }
    }

    /** A trigger's {@code inputs}: a mapping (the executions' inputs, as given), or a problem. */
    static Map<String, Object> inputs(Map<String, Object> properties, String where, List<String> problems) {
        Object given = properties.get("inputs");
        if (given instanceof Map<?, ?> map) {
            var inputs = new LinkedHashMap<String, Object>();
            map.forEach((k, v) -> inputs.put(String.valueOf(k), v));
            return inputs;
        }
        if (given != null) {
            problems.add("Expected " + where + ".inputs to be a mapping");
        }
        return Map.of();
    }

    private String text(JsonNode node, String name, String where) {
        JsonNode value = node.path(name);
        if (!value.isTextual() && !value.isNumber()) {
            problems.add("Expected " + where + "." + name + " to be a string");
            return null;
        }
        return value.asText();
    }
}
