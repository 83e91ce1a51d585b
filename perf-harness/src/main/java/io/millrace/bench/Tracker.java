package io.millrace.bench;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Matches started executions with their terminal snapshots. Either side may come first (a REST start learns
 * its execution id only from the response, which can arrive after the execution ended), so both sides put,
 * then look for the other; the atomic remove makes sure each execution is counted once.
 */
final class Tracker {
    private record Pending(long dueNanos, LatencyWindow window) {
    }

    /**
     * {@code startedNanos}, {@code endedNanos}: when the executor started the execution and decided its end;
     * {@link #UNKNOWN} when not known.
     */
    private record Ended(long atNanos, long startedNanos, long endedNanos, boolean success) {
    }

    /** A start time that is not known. */
    static final long UNKNOWN = Long.MIN_VALUE;

    private static final long FORGET_UNKNOWN_NANOS = 60_000_000_000L;

    private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Ended> unmatched = new ConcurrentHashMap<>();
    private final AtomicLong completions = new AtomicLong();
    private final Consumer<String> onStarted;

    Tracker() {
        this(id -> {
        });
    }

    /** @param onStarted told of each execution id as it is started (a Kafka start before its send is acknowledged) */
    Tracker(Consumer<String> onStarted) {
        this.onStarted = onStarted;
    }

    /** An execution due at {@code dueNanos} was started (or its start failed) and belongs to {@code window}. */
    void started(String executionId, long dueNanos, LatencyWindow window) {
        window.expectOne();
        onStarted.accept(executionId);
        Pending p = new Pending(dueNanos, window);
        pending.put(executionId, p);
        Ended ended = unmatched.remove(executionId);
        if (ended != null && pending.remove(executionId, p)) {
            finish(p, ended);
        }
    }

    /** A start that never reached the engine, or that it answered with an error: counted as a failure of its window. */
    void startFailed(LatencyWindow window) {
        window.expectOne();
        window.recordFailure();
    }

    /** A start the engine refused, asking to retry later (shed load): no execution to wait for, and no failure. */
    void startRefused(LatencyWindow window) {
        window.recordRefused();
    }

    /** A start that got no answer (timed out, connection closed): no execution to wait for, counted apart. */
    void startUnanswered(LatencyWindow window) {
        window.recordUnanswered();
    }

    /** A terminal snapshot of {@code executionId} was observed at {@code atNanos}; when it started is not known. */
    void ended(String executionId, long atNanos, boolean success) {
        ended(executionId, atNanos, UNKNOWN, UNKNOWN, success);
    }

    /**
     * A terminal snapshot of {@code executionId} was observed at {@code atNanos}; the executor started it at
     * {@code startedNanos} and decided its end at {@code endedNanos} (each {@link #UNKNOWN} when not known).
     */
    void ended(String executionId, long atNanos, long startedNanos, long endedNanos, boolean success) {
        Pending p = pending.remove(executionId);
        Ended ended = new Ended(atNanos, startedNanos, endedNanos, success);
        if (p != null) {
            finish(p, ended);
            return;
        }
        unmatched.put(executionId, ended);
        Pending late = pending.remove(executionId);
        if (late != null && unmatched.remove(executionId, ended)) {
            finish(late, ended);
        }
    }

    /** Forgets terminal snapshots nobody claimed for a minute (executions this run did not start). */
    void forgetUnknown(long nowNanos) {
        unmatched.values().removeIf(e -> nowNanos - e.atNanos() > FORGET_UNKNOWN_NANOS);
    }

    /** Executions of this run that ended so far. */
    long completions() {
        return completions.get();
    }

    private void finish(Pending p, Ended e) {
        completions.incrementAndGet();
        if (e.success()) {
            p.window().recordSuccess(e.atNanos() - p.dueNanos());
            if (e.startedNanos() != UNKNOWN) {
                p.window().recordStart(e.startedNanos() - p.dueNanos());
                if (e.endedNanos() != UNKNOWN) {
                    p.window().recordEnd(e.endedNanos() - e.startedNanos(), e.atNanos() - e.endedNanos());
                }
            }
        } else {
            p.window().recordFailure();
        }
    }
}
