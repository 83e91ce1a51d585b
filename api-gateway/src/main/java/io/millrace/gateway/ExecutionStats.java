package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.millrace.serdes.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The overview of the executions started in a span (the last hours): how many started each minute, by their state now,
 * the median and 95th percentile of the durations of those that ended, and the flows that failed most. Built from the
 * read model's index, newest first: {@link #add} answers false once a summary started before the span. At most
 * {@link #MAX_SCANNED} executions are read; past them the answer says {@code truncated}.
 */
final class ExecutionStats {
    static final int MAX_HOURS = 24;
    static final int MAX_SCANNED = 200_000;
    private static final int FLOWS = 10;

    private final long from;
    private final long to;
    private final String namespace;
    private final Predicate<String> visible;
    private final Map<Long, Map<String, Integer>> counts = new TreeMap<>();
    private final Map<Long, List<Long>> durations = new TreeMap<>();
    /** By namespace/flow id: executions that ended FAILED, and all. */
    private final Map<String, int[]> flows = new HashMap<>();
    private int scanned;
    private boolean truncated;

    /**
     * @param namespace only this namespace and those under it; null: all
     * @param visible whether the caller may see a namespace's executions
     */
    ExecutionStats(Instant from, Instant to, String namespace, Predicate<String> visible) {
        this.from = from.toEpochMilli();
        this.to = to.toEpochMilli();
        this.namespace = namespace;
        this.visible = visible;
    }

    /** Counts one execution; false once the index has gone past the span (or the bound), so the scan stops. */
    boolean add(ExecutionIndex.Summary summary) {
        if (summary.start() < from) {
            return false;
        }
        if (++scanned > MAX_SCANNED) {
            truncated = true;
            return false;
        }
        if (summary.start() >= to || !visible.test(summary.namespace()) || (namespace != null
                && !summary.namespace().equals(namespace) && !summary.namespace().startsWith(namespace + "."))) {
            return true;
        }
        long minute = summary.start() - Math.floorMod(summary.start(), 60_000L);
        counts.computeIfAbsent(minute, m -> new TreeMap<>()).merge(summary.state(), 1, Integer::sum);
        if (summary.end() != null) {
            durations.computeIfAbsent(minute, m -> new ArrayList<>()).add(summary.end() - summary.start());
        }
        int[] flow = flows.computeIfAbsent(summary.namespace() + "/" + summary.flowId(), k -> new int[2]);
        flow[1]++;
        if ("FAILED".equals(summary.state())) {
            flow[0]++;
        }
        return true;
    }

    /**
     * {@code from}, {@code to}, {@code minutes} (each with executions: its {@code minute}, {@code counts} by state and,
     * for those that ended, {@code p50} and {@code p95} as ISO-8601 durations), {@code failing} (up to ten flows with
     * a FAILED execution, most first: namespace, flowId, failed, total) and {@code truncated}.
     */
    ObjectNode json() {
        ObjectNode json = Json.MAPPER.createObjectNode().put("from", Instant.ofEpochMilli(from).toString())
                .put("to", Instant.ofEpochMilli(to).toString());
        ArrayNode minutes = json.putArray("minutes");
        counts.forEach((minute, byState) -> {
            ObjectNode entry = minutes.addObject().put("minute", Instant.ofEpochMilli(minute).toString());
            byState.forEach(entry.putObject("counts")::put);
            List<Long> ended = durations.get(minute);
            if (ended != null) {
                ended.sort(null);
                entry.put("p50", quantile(ended, 0.5).toString()).put("p95", quantile(ended, 0.95).toString());
            }
        });
        ArrayNode failing = json.putArray("failing");
        flows.entrySet().stream().filter(e -> e.getValue()[0] > 0)
                .sorted(Comparator.<Map.Entry<String, int[]>>comparingInt(e -> -e.getValue()[0]).thenComparing(Map.Entry::getKey))
                .limit(FLOWS).forEach(e -> {
                    int slash = e.getKey().indexOf('/');
                    failing.addObject().put("namespace", e.getKey().substring(0, slash))
                            .put("flowId", e.getKey().substring(slash + 1))
                            .put("failed", e.getValue()[0]).put("total", e.getValue()[1]);
                });
        return json.put("truncated", truncated);
    }

    /** The nearest-rank quantile of sorted durations in milliseconds. */
    private static Duration quantile(List<Long> sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.size());
        return Duration.ofMillis(sorted.get(Math.max(0, rank - 1)));
    }
}
