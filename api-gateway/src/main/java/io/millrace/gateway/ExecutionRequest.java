package io.millrace.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.serdes.Json;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a caller asks when starting an execution: the body {@code {"inputs": {...}, "labels": {...}}}
 * (both optional, an empty body too) and the {@code wait} and {@code timeout} query parameters.
 * Labels may also be given Kestra's way, as a list of {@code {"key", "value"}}.
 */
record ExecutionRequest(Map<String, Object> inputs, Map<String, String> labels) {
    private static final ObjectMapper MAPPER = Json.MAPPER;
    private static final Set<String> FIELDS = Set.of("inputs", "labels");

    static ExecutionRequest parse(String body) {
        if (body == null || body.isBlank()) {
            return new ExecutionRequest(Map.of(), Map.of());
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            var where = e.getLocation();
            throw ApiException.badRequest("Malformed JSON body"
                    + (where == null ? "" : " at line " + where.getLineNr() + ", column " + where.getColumnNr())
                    + ": " + e.getOriginalMessage());
        }
        if (!root.isObject()) {
            throw ApiException.badRequest("Expected the body to be a JSON object such as {\"inputs\": {...}, \"labels\": {...}}, but found "
                    + kind(root));
        }
        var problems = new ArrayList<String>();
        root.fieldNames().forEachRemaining(name -> {
            if (!FIELDS.contains(name)) {
                problems.add("Unknown property '" + name + "'; expected 'inputs' and/or 'labels'");
            }
        });
        Map<String, Object> inputs = inputs(root.path("inputs"), problems);
        Map<String, String> labels = labels(root.path("labels"), problems);
        if (!problems.isEmpty()) {
            throw ApiException.badRequest("Invalid execution request: " + String.join("; ", problems), problems);
        }
        return new ExecutionRequest(inputs, labels);
    }

    /** {@code ?wait=true}; absent or {@code false} means do not wait. */
    static boolean wait(String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiException.badRequest("Expected query parameter 'wait' to be true or false, but got '" + value + "'");
        };
    }

    /** {@code ?timeout=PT5S} (ISO-8601, positive, at most the configured limit), else the configured limit. */
    static Duration timeout(String value, Duration fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            Duration timeout = Duration.parse(value.trim());
            if (!timeout.isNegative() && !timeout.isZero()) {
                return timeout.compareTo(fallback) < 0 ? timeout : fallback;
            }
        } catch (DateTimeParseException ignored) {
            // reported below
        }
        throw ApiException.badRequest("Expected query parameter 'timeout' to be a positive ISO-8601 duration such as PT30S, but got '"
                + value + "'");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> inputs(JsonNode node, List<String> problems) {
        if (node.isMissingNode() || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            problems.add("Expected 'inputs' to be a JSON object, but found " + kind(node));
            return Map.of();
        }
        return MAPPER.convertValue(node, LinkedHashMap.class);
    }

    private static Map<String, String> labels(JsonNode node, List<String> problems) {
        var labels = new LinkedHashMap<String, String>();
        if (node.isMissingNode() || node.isNull()) {
            return labels;
        }
        if (node.isObject()) {
            node.properties().forEach(e -> label(e.getKey(), e.getValue(), labels, problems));
        } else if (node.isArray()) {
            for (JsonNode pair : node) {
                if (!pair.isObject() || !pair.path("key").isTextual() || pair.path("key").asText().isBlank()) {
                    problems.add("Expected each label to be {\"key\": \"...\", \"value\": \"...\"}, but found " + pair);
                } else {
                    label(pair.get("key").asText(), pair.path("value"), labels, problems);
                }
            }
        } else {
            problems.add("Expected 'labels' to be a JSON object of strings, but found " + kind(node));
        }
        return labels;
    }

    private static void label(String key, JsonNode value, Map<String, String> labels, List<String> problems) {
        if (value.isValueNode() && !value.isNull()) {
            labels.put(key, value.asText());
        } else {
            problems.add("Expected label '" + key + "' to have a text value, but found " + kind(value));
        }
    }

    private static String kind(JsonNode node) {
        return node.isMissingNode() ? "nothing" : node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
