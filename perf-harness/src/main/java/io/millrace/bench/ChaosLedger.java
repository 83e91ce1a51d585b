package io.millrace.bench;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What the chaos suite started and what the engine ended. A start counts once it was accepted (the broker acknowledged
 * the create command or the trigger's record, or the gateway answered 200/202 with an id), under the fault phase it
 * was sent in; an ending is an ExecutionCompleted event read from the events topic (committed records only). It also
 * keeps when each start was sent and when its first ending was read, and the moments of the suite's events (a kill, a
 * process started again), for what each event cost: the longest stretch with no execution ending, and the latency of
 * the Kafka starts sent after it ({@link #pauses}).
 */
final class ChaosLedger {
    enum Via { KAFKA, REST, TRIGGER }

    private record Start(String phase, Via via, long sentNanos) {
    }

    private record Mark(String what, long atNanos) {
    }

    /**
     * What one event of the suite cost, over its window (from the event to the next one, or to the end of the load).
     *
     * @param atSeconds     when it happened, from the first event
     * @param longestGapMs  the longest stretch with no execution ending that overlaps the window, in ms
     * @param gapAfterMs    when that stretch began, from the event (negative: before it)
     * @param kafkaStarts   Kafka starts sent in the window and accepted; {@code ended} of them ended
     * @param p50Ms         those that ended: from the send to the ending's read, at p50, p99 and the most
     */
    record Pause(String guarantee, String what, double atSeconds, double longestGapMs, double gapAfterMs,
                 long kafkaStarts, long ended, double p50Ms, double p99Ms, double maxMs) {
    }

    /** One fault's tally; {@code resent} only under at_least_once (the same outcome sent again), else part of doubled. */
    record Row(String guarantee, String phase, long accepted, long viaKafka, long viaRest, long viaTrigger,
               long endedOnce, long lost, long doubled, long resent, long restUnanswered, long restRefused,
               long restFailed) {
    }

    private final Map<String, Start> accepted = new ConcurrentHashMap<>();
    private final Map<String, List<String>> completions = new ConcurrentHashMap<>();
    /** When each execution's first ending was read (System.nanoTime). */
    private final Map<String, Long> endedAt = new ConcurrentHashMap<>();
    private final List<Mark> marks = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> unanswered = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> refused = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> failed = new ConcurrentHashMap<>();
    private final List<String> phases = new CopyOnWriteArrayList<>();
    private volatile String phase;

    /** Starts sent from now on belong to {@code name}. */
    void phase(String name) {
        phases.add(name);
        phase = name;
    }

    String phase() {
        return phase;
    }

    /** @param sentNanos when the start was sent (System.nanoTime) */
    void accepted(String executionId, String sentIn, Via via, long sentNanos) {
        accepted.putIfAbsent(executionId, new Start(sentIn, via, sentNanos));
    }

    /** Something happened at {@code atNanos} (System.nanoTime): a process killed, started, stopped. */
    void mark(String what, long atNanos) {
        marks.add(new Mark(what, atNanos));
    }

    /** A REST start with no answer (the connection failed or closed, or it timed out). */
    void unanswered(String sentIn) {
        unanswered.computeIfAbsent(sentIn, k -> new AtomicLong()).incrementAndGet();
    }

    /** A REST start answered with an error other than a refusal. */
    void failed(String sentIn) {
        failed.computeIfAbsent(sentIn, k -> new AtomicLong()).incrementAndGet();
    }

    /** A REST start answered 429 or 503 with {@code Retry-After}. */
    void refused(String sentIn) {
        refused.computeIfAbsent(sentIn, k -> new AtomicLong()).incrementAndGet();
    }

    /** @param readNanos when the ending was read (System.nanoTime) */
    void completed(String executionId, String state, long readNanos) {
        completions.computeIfAbsent(executionId, k -> new CopyOnWriteArrayList<>()).add(state);
        endedAt.putIfAbsent(executionId, readNanos);
    }

    long acceptedCount() {
        return accepted.size();
    }

    /** Accepted starts with no ending yet. */
    long open() {
        return accepted.keySet().stream().filter(id -> !completions.containsKey(id)).count();
    }

    /** Executions that ended but whose start was never acknowledged (e.g. a REST answer lost with the gateway). */
    long endedUnacknowledged() {
        return completions.keySet().stream().filter(id -> !accepted.containsKey(id)).count();
    }

    /** Unacknowledged executions that ended more than once (under at_least_once: with different outcomes). */
    long doubledUnacknowledged(boolean exactlyOnce) {
        return completions.entrySet().stream().filter(e -> !accepted.containsKey(e.getKey()))
                .filter(e -> doubled(e.getValue(), exactlyOnce)).count();
    }

    /** Accepted executions that ended more than once or never ended, for a report that names them. */
    List<String> faulty(boolean exactlyOnce, int most) {
        var ids = new ArrayList<String>();
        accepted.forEach((id, start) -> {
            List<String> ends = completions.get(id);
            if (ids.size() < most && (ends == null || doubled(ends, exactlyOnce))) {
                ids.add(id + " (" + start.phase() + ", " + start.via().name().toLowerCase(java.util.Locale.ROOT) + "): "
                        + (ends == null ? "never ended" : "ended " + ends));
            }
        });
        return ids;
    }

    /** One row per phase, in the order the phases ran. */
    List<Row> rows(String guarantee, boolean exactlyOnce) {
        var rows = new ArrayList<Row>();
        for (String name : phases) {
            long n = 0, kafka = 0, rest = 0, trigger = 0, once = 0, lost = 0, doubled = 0, resent = 0;
            for (var e : accepted.entrySet()) {
                if (!e.getValue().phase().equals(name)) {
                    continue;
                }
                n++;
                switch (e.getValue().via()) {
                    case KAFKA -> kafka++;
                    case REST -> rest++;
                    case TRIGGER -> trigger++;
                }
                List<String> ends = completions.get(e.getKey());
                if (ends == null) {
                    lost++;
                } else if (ends.size() == 1) {
                    once++;
                } else if (doubled(ends, exactlyOnce)) {
                    doubled++;
                } else {
                    resent++;
                }
            }
            rows.add(new Row(guarantee, name, n, kafka, rest, trigger, once, lost, doubled, resent,
                    count(unanswered, name), count(refused, name), count(failed, name)));
        }
        return rows;
    }

    /**
     * One row per {@link #mark}, in order: its window runs to the next mark, the last one's to {@code endNanos} (when
     * the load stopped). A stretch with no ending counts in every window it overlaps, so a pause that outlasts the
     * event after it shows under both.
     */
    List<Pause> pauses(String guarantee, long endNanos) {
        long[] ends = endedAt.values().stream().mapToLong(Long::longValue).sorted().toArray();
        var rows = new ArrayList<Pause>();
        for (int i = 0; i < marks.size(); i++) {
            Mark mark = marks.get(i);
            long from = mark.atNanos();
            long to = i + 1 < marks.size() ? marks.get(i + 1).atNanos() : endNanos;
            // the stretches between one ending and the next (the last before the window opens it, the window's end
            // closes it when nothing ended after): the longest that overlaps the window
            long gap = 0;
            long gapStart = from;
            long previous = from;
            boolean closed = false;
            for (long end : ends) {
                if (end <= from) {
                    previous = end;
                    continue;
                }
                if (end - previous > gap) {
                    gap = end - previous;
                    gapStart = previous;
                }
                if (end >= to) {
                    closed = true;
                    break;
                }
                previous = end;
            }
            if (!closed && to - previous > gap) {
                gap = to - previous;
                gapStart = previous;
            }
            var latencies = new Histogram(3);
            long sent = 0;
            for (var e : accepted.entrySet()) {
                Start start = e.getValue();
                if (start.via() != Via.KAFKA || start.sentNanos() < from || start.sentNanos() >= to) {
                    continue;
                }
                sent++;
                Long end = endedAt.get(e.getKey());
                if (end != null) {
                    latencies.recordValue(Math.max(0, (end - start.sentNanos()) / 1_000));
                }
            }
            boolean any = latencies.getTotalCount() > 0;
            rows.add(new Pause(guarantee, mark.what(), (from - marks.getFirst().atNanos()) / 1e9, gap / 1e6,
                    (gapStart - from) / 1e6, sent, latencies.getTotalCount(),
                    any ? latencies.getValueAtPercentile(50) / 1e3 : Double.NaN,
                    any ? latencies.getValueAtPercentile(99) / 1e3 : Double.NaN,
                    any ? latencies.getMaxValue() / 1e3 : Double.NaN));
        }
        return rows;
    }

    /**
     * Under exactly_once_v2 a second completion is a doubling; under at_least_once the executor may send the same
     * completion again after a crash (its documented contract), so only a second, different outcome is one.
     */
    private static boolean doubled(List<String> ends, boolean exactlyOnce) {
        return exactlyOnce ? ends.size() > 1 : new HashSet<>(ends).size() > 1;
    }

    private static long count(Map<String, AtomicLong> counters, String name) {
        AtomicLong c = counters.get(name);
        return c == null ? 0 : c.get();
    }
}
