package io.millrace.core.execution;

import java.time.Instant;
import java.util.List;

/**
 * One attempt at a task run. A worker task's attempt holds a lease: {@code leaseUntil} is when the executor gives
 * up on the worker holding it, unless a heartbeat extends it; a flowable's attempt has none (null).
 * {@code lost}: the attempt ended because its worker stopped answering, not because the task failed; lost attempts
 * are counted apart from the task's own failures (which its retry policy counts). {@code error} says why a failed
 * attempt failed. {@code worker}: when the worker received, started and ended it, from its final result; null for a
 * flowable's attempt, one that has not ended, one lost, and one a worker from before these times reported.
 */
public record Attempt(int number, State state, List<StateHistory> histories, Instant leaseUntil, String error,
        boolean lost, WorkerTimes worker) {

    public Attempt {
        histories = List.copyOf(histories);
    }

    /** An attempt without a worker's times. */
    public Attempt(int number, State state, List<StateHistory> histories, Instant leaseUntil, String error,
            boolean lost) {
        this(number, state, histories, leaseUntil, error, lost, null);
    }

    public Attempt transition(State next, Instant at) {
        return new Attempt(number, next, Lists.append(histories, new StateHistory(next, at)), leaseUntil, error, lost,
                worker);
    }

    public Attempt withLeaseUntil(Instant until) {
        return new Attempt(number, state, histories, until, error, lost, worker);
    }

    public Attempt ended(State next, Instant at, String why, boolean wasLost) {
        return ended(next, at, why, wasLost, worker);
    }

    /** Ends the attempt with the times its worker reported (null: none). */
    public Attempt ended(State next, Instant at, String why, boolean wasLost, WorkerTimes times) {
        return new Attempt(number, next, Lists.append(histories, new StateHistory(next, at)), leaseUntil, why, wasLost,
                times);
    }
}
