package io.millrace.gateway;

import io.millrace.core.execution.State;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A search of executions, as {@code GET /api/v1/executions/search} takes it: {@code namespace} (that namespace and the
 * ones under it), {@code flowId}, {@code state} (repeatable), {@code labels} ({@code key:value}, repeatable; all must
 * hold), {@code triggerId} and {@code triggerType} (of the trigger that started it), {@code startDate} and
 * {@code endDate} (ISO-8601 instants: started at or after the one, before the other) or {@code timeRange} (an ISO-8601
 * duration, {@code PT1H}: started within it, up to now; not with {@code startDate}), {@code page} (from 1),
 * {@code size} (1 to {@link #MAX_SIZE}, default 10) and {@code sort} ({@code state.startDate:desc}, the default, or
 * {@code :asc}). A bad parameter is a 400 naming it. Only executions of the namespaces the caller may see are found,
 * and counted in the total.
 */
record ExecutionSearch(String namespace, String flowId, Set<String> states, Map<String, String> labels, String triggerId,
        String triggerType, long from, long to, int page, int size, boolean ascending, Predicate<String> visible) {

    static final int MAX_SIZE = 1000;
    private static final Set<String> STATES = Arrays.stream(State.values()).map(State::name)
            .collect(Collectors.toUnmodifiableSet());

    /**
     * @param visible whether the caller may see a namespace's executions
     * @param now what {@code timeRange} counts back from
     */
    static ExecutionSearch parse(Map<String, List<String>> query, Predicate<String> visible, Instant now) {
        var states = new TreeSet<String>();
        for (String state : query.getOrDefault("state", List.of())) {
            String name = state.trim().toUpperCase(Locale.ROOT);
            if (!STATES.contains(name)) {
                throw ApiException.badRequest("Query parameter 'state' must be one of " + new TreeSet<>(STATES) + ", got '"
                        + state + "'");
            }
            states.add(name);
        }
        var labels = new LinkedHashMap<String, String>();
        for (String label : query.getOrDefault("labels", List.of())) {
            int colon = label.indexOf(':');
            if (colon <= 0) {
                throw ApiException.badRequest("Query parameter 'labels' must be key:value, got '" + label + "'");
            }
            labels.put(label.substring(0, colon), label.substring(colon + 1));
        }
        int page = number(query, "page", 1, 1, Integer.MAX_VALUE);
        int size = number(query, "size", 10, 1, MAX_SIZE);
        String sort = first(query, "sort");
        boolean ascending = false;
        if (sort != null) {
            switch (sort.trim()) {
                case "state.startDate:asc", "startDate:asc" -> ascending = true;
                case "state.startDate:desc", "startDate:desc", "state.startDate", "startDate" -> ascending = false;
                default -> throw ApiException.badRequest("Query parameter 'sort' must be state.startDate:desc or "
                        + "state.startDate:asc, got '" + sort + "'");
            }
        }
        long from = instant(query, "startDate", 0);
        long to = instant(query, "endDate", Long.MAX_VALUE);
        String range = first(query, "timeRange");
        if (range != null) {
            if (first(query, "startDate") != null) {
                throw ApiException.badRequest("Expected query parameter 'timeRange' or 'startDate', but got both");
            }
            try {
                Duration span = Duration.parse(range.trim());
                if (span.isNegative() || span.isZero()) {
                    throw new DateTimeException("not positive");
                }
                from = now.minus(span).toEpochMilli();
            } catch (DateTimeException | ArithmeticException e) {
                throw ApiException.badRequest("Query parameter 'timeRange' must be a positive ISO-8601 duration such as "
                        + "PT1H, got '" + range + "'");
            }
        }
        if (from >= to) {
            throw ApiException.badRequest("Expected the start of the time range to be before its end ('endDate'), but "
                    + Instant.ofEpochMilli(from) + " is not before " + Instant.ofEpochMilli(to));
        }
        return new ExecutionSearch(first(query, "namespace"), first(query, "flowId"), states, labels,
                first(query, "triggerId"), first(query, "triggerType"), from, to, page, size, ascending, visible);
    }

    boolean matches(ExecutionIndex.Summary summary) {
        return (states.isEmpty() || states.contains(summary.state())) && matchesButState(summary);
    }

    /** Whether an execution matches every filter but the states: it counts in the counts by state. */
    boolean matchesButState(ExecutionIndex.Summary summary) {
        return (namespace == null || summary.namespace().equals(namespace) || summary.namespace().startsWith(namespace + "."))
                && (flowId == null || summary.flowId().equals(flowId))
                && labels.entrySet().stream().allMatch(l -> l.getValue().equals(summary.labels().get(l.getKey())))
                && (triggerId == null || triggerId.equals(summary.triggerId()))
                && (triggerType == null || triggerType.equals(summary.triggerType()))
                && summary.start() >= from && summary.start() < to
                && visible.test(summary.namespace());
    }

    /** The index range to scan: one flow's executions when the query names the flow, else all of them. */
    String prefix() {
        return namespace != null && flowId != null ? ExecutionIndex.flowPrefix(namespace, flowId) : ExecutionIndex.BY_TIME;
    }

    private static long instant(Map<String, List<String>> query, String name, long fallback) {
        String value = first(query, name);
        if (value == null) {
            return fallback;
        }
        try {
            return Instant.parse(value.trim()).toEpochMilli();
        } catch (DateTimeException | ArithmeticException e) {
            throw ApiException.badRequest("Query parameter '" + name + "' must be an ISO-8601 instant such as "
                    + "2026-11-28T10:15:30Z, got '" + value + "'");
        }
    }

    private static String first(Map<String, List<String>> query, String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() || values.getFirst().isBlank() ? null : values.getFirst();
    }

    static int number(Map<String, List<String>> query, String name, int fallback, int min, int max) {
        String value = first(query, name);
        if (value == null) {
            return fallback;
        }
        try {
            int number = Integer.parseInt(value.trim());
            if (number < min || number > max) {
                throw new NumberFormatException();
            }
            return number;
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("Query parameter '" + name + "' must be a number from " + min
                    + (max == Integer.MAX_VALUE ? "" : " to " + max) + ", got '" + value + "'");
        }
    }
}
