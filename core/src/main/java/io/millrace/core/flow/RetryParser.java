package io.millrace.core.flow;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Parses a task's {@code retry}: {@code type} constant, exponential or random, and their bounds. */
final class RetryParser {
    private static final Map<String, Set<String>> PROPERTIES = Map.of(
            "constant", Set.of("interval"),
            "exponential", Set.of("interval", "maxInterval", "delayFactor"),
            "random", Set.of("minInterval", "maxInterval"));
    private static final Set<String> COMMON = Set.of("type", "maxAttempt", "maxAttempts", "maxDuration", "warningOnRetry", "behavior");

    private RetryParser() {
    }

    static RetryPolicy parse(JsonNode node, String where, List<String> problems) {
        int before = problems.size();
        if (!node.isObject()) {
            problems.add("Expected " + where + " to be a mapping with a type, but found " + TaskNode.kind(node));
            return null;
        }
        String typeName = node.path("type").asText("").toLowerCase(Locale.ROOT);
        Set<String> own = PROPERTIES.get(typeName);
        if (own == null) {
            problems.add("Expected " + where + ".type to be constant, exponential or random, but found '"
                    + node.path("type").asText("") + "'");
            return null;
        }
        node.fieldNames().forEachRemaining(name -> {
            if (!own.contains(name) && !COMMON.contains(name)) {
                problems.add("Unknown or unsupported property '" + name + "' at " + where);
            }
        });
        String behaviorName = node.path("behavior").asText("RETRY_FAILED_TASK");
        RetryPolicy.Behavior behavior = null;
        try {
            behavior = RetryPolicy.Behavior.valueOf(behaviorName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add("Expected " + where + ".behavior to be RETRY_FAILED_TASK or CREATE_NEW_EXECUTION, but found '"
                    + behaviorName + "'");
        }
        Integer maxAttempt = node.has("maxAttempt") ? positiveInt(node.get("maxAttempt"), where + ".maxAttempt", problems)
                : node.has("maxAttempts") ? positiveInt(node.get("maxAttempts"), where + ".maxAttempts", problems) : null;
        Duration maxDuration = optionalDuration(node, "maxDuration", where, problems);
        if (maxAttempt == null && maxDuration == null && problems.size() == before) {
            problems.add("Expected " + where + " to bound the retries with maxAttempt or maxDuration, but it has neither");
        }
        Duration interval = typeName.equals("random") ? null : requiredDuration(node, "interval", where, problems);
        Duration maxInterval = typeName.equals("constant") ? null
                : typeName.equals("random") ? requiredDuration(node, "maxInterval", where, problems)
                : optionalDuration(node, "maxInterval", where, problems);
        Duration minInterval = typeName.equals("random") ? requiredDuration(node, "minInterval", where, problems) : null;
        double delayFactor = node.path("delayFactor").asDouble(2.0);
        if (node.has("delayFactor") && (!node.get("delayFactor").isNumber() || delayFactor < 1)) {
            problems.add("Expected " + where + ".delayFactor to be a number of at least 1, but found " + node.get("delayFactor"));
        }
        if (minInterval != null && maxInterval != null && minInterval.compareTo(maxInterval) > 0) {
            problems.add("Expected " + where + ".minInterval to be at most maxInterval, but " + minInterval + " > " + maxInterval);
        }
        if (problems.size() > before) {
            return null;
        }
        return new RetryPolicy(RetryPolicy.Type.valueOf(typeName.toUpperCase(Locale.ROOT)), interval, maxInterval,
                delayFactor, minInterval, maxAttempt, maxDuration, node.path("warningOnRetry").asBoolean(false), behavior);
    }

    private static Integer positiveInt(JsonNode value, String where, List<String> problems) {
        if (value.canConvertToInt() && value.isIntegralNumber() && value.asInt() >= 1) {
            return value.asInt();
        }
        problems.add("Expected " + where + " to be a whole number of at least 1, but found " + value);
        return null;
    }

    private static Duration requiredDuration(JsonNode node, String name, String where, List<String> problems) {
        if (!node.has(name)) {
            problems.add("Missing required property '" + name + "' at " + where);
            return null;
        }
        return optionalDuration(node, name, where, problems);
    }

    private static Duration optionalDuration(JsonNode node, String name, String where, List<String> problems) {
        if (!node.has(name) || node.get(name).isNull()) {
            return null;
        }
        Duration duration = TaskTreeParser.positiveDuration(node.get(name));
        if (duration == null) {
            problems.add("Expected " + where + "." + name + " to be a positive ISO-8601 duration such as PT1S, but found "
                    + node.get(name));
        }
        return duration;
    }
}
