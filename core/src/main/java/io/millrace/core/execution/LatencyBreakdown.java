package io.millrace.core.execution;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where an execution's time went, hop by hop, from what its state holds: the executor's dates of each attempt
 * (dispatched: its RUNNING; result read: its end) and the worker's ({@link WorkerTimes}).
 *
 * <ul>
 *   <li>{@code queued}: from the start's request to the executor's first decision on it;</li>
 *   <li>{@code toWorkers}: from each dispatch to the worker's poll returning it (the dispatch's commit included);</li>
 *   <li>{@code waitingForSlot}: from there to a free worker thread starting it;</li>
 *   <li>{@code running}: the task itself;</li>
 *   <li>{@code resultsBack}: from the result made to the executor's decision on it (its produce, the executor's read);</li>
 *   <li>{@code outsideWorkers}: the time from the start's first decision to its end when no attempt was on its way to,
 *   at or back from a worker: the executor's decisions and commits between steps, and waits (retries, pauses,
 *   subflows, flowables' own decisions);</li>
 *   <li>{@code total}: from the first decision to the end (null while the execution runs).</li>
 * </ul>
 *
 * <p>The worker hops are sums over every attempt a worker reported, so parallel tasks add up to more than the
 * execution's span; an attempt without a worker's times (a flowable, a lost attempt, an older worker) adds nothing.
 * A hop across two machines holds their clocks' difference; a difference that makes a hop negative counts as zero.
 * {@code queued} is null when the request's time is not known.
 */
public record LatencyBreakdown(Duration queued, Duration toWorkers, Duration waitingForSlot, Duration running,
        Duration resultsBack, Duration outsideWorkers, Duration total) {

    public static LatencyBreakdown of(Execution execution) {
        Instant created = execution.startDate();
        Instant end = execution.state().isTerminal() ? execution.histories().getLast().date() : null;
        Duration toWorkers = Duration.ZERO;
        Duration slot = Duration.ZERO;
        Duration running = Duration.ZERO;
        Duration back = Duration.ZERO;
        var away = new ArrayList<Instant[]>();
        for (TaskRun run : execution.taskRuns()) {
            for (Attempt attempt : run.attempts()) {
                WorkerTimes worker = attempt.worker();
                if (worker == null || attempt.histories().isEmpty() || !attempt.state().isTerminal()) {
                    continue;
                }
                Instant dispatched = attempt.histories().getFirst().date();
                Instant read = attempt.histories().getLast().date();
                toWorkers = toWorkers.plus(between(dispatched, worker.received()));
                slot = slot.plus(between(worker.received(), worker.started()));
                running = running.plus(between(worker.started(), worker.ended()));
                back = back.plus(between(worker.ended(), read));
                away.add(new Instant[] {dispatched, read});
            }
        }
        Duration total = end == null ? null : between(created, end);
        Duration outside = end == null ? null : between(created, end).minus(covered(away, created, end));
        Duration queued = execution.requestedAt() == null ? null : between(execution.requestedAt(), created);
        return new LatencyBreakdown(queued, toWorkers, slot, running, back, outside, total);
    }

    /** How much of [from, to] the spans cover, each span counted once where spans overlap. */
    private static Duration covered(List<Instant[]> spans, Instant from, Instant to) {
        spans.sort(Comparator.comparing(span -> span[0]));
        Duration covered = Duration.ZERO;
        Instant reached = from;
        for (Instant[] span : spans) {
            Instant start = span[0].isAfter(reached) ? span[0] : reached;
            Instant stop = span[1].isBefore(to) ? span[1] : to;
            if (stop.isAfter(start)) {
                covered = covered.plus(Duration.between(start, stop));
                reached = stop;
            }
        }
        return covered;
    }

    /** The time from {@code from} to {@code to}; zero when a clock's difference makes it negative. */
    private static Duration between(Instant from, Instant to) {
        Duration d = Duration.between(from, to);
        return d.isNegative() ? Duration.ZERO : d;
    }
}
