package io.millrace.core.flow;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A flow's {@code concurrency}: at most {@code limit} of its executions run (or wait PAUSED) at once, across every
 * executor; a new one past it waits QUEUED for a place (QUEUE), ends CANCELLED (CANCEL) or FAILED (FAIL).
 */
public record Concurrency(int limit, Behavior behavior) {
    /** The most a limit may be: the executions holding a place are kept in one record per flow. */
    public static final int MAX_LIMIT = 1_000;
    private static final Set<String> PROPERTIES = Set.of("limit", "behavior");

    public enum Behavior { QUEUE, CANCEL, FAIL }

    /** The flow's {@code concurrency} property, or null when it has none; problems are added to {@code problems}. */
    static Concurrency parse(JsonNode node, List<String> problems) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            problems.add("Expected 'concurrency' to be a mapping with a limit, but found " + TaskNode.kind(node));
            return null;
        }
        node.fieldNames().forEachRemaining(name -> {
            if (!PROPERTIES.contains(name)) {
                problems.add("Unknown or unsupported property '" + name + "' at concurrency");
            }
        });
        JsonNode limit = node.get("limit");
        if (limit == null || !limit.canConvertToInt() || !limit.isIntegralNumber() || limit.asInt() < 1
                || limit.asInt() > MAX_LIMIT) {
            problems.add("Expected concurrency.limit to be a whole number from 1 to " + MAX_LIMIT + ", but found "
                    + (limit == null ? "none" : "'" + limit.asText() + "'"));
            return null;
        }
        String behavior = node.path("behavior").asText("QUEUE");
        try {
            return new Concurrency(limit.asInt(), Behavior.valueOf(behavior.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            problems.add("Expected concurrency.behavior to be QUEUE, CANCEL or FAIL, but found '" + behavior + "'");
            return null;
        }
    }
}
