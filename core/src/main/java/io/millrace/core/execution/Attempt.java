package io.millrace.core.execution;

import java.time.Instant;
import java.util.List;

/**
 * One attempt at running a task run on a worker. {@code leaseUntil} is when the executor gives up on
 * the worker holding it and dispatches a new attempt, unless a heartbeat extends it.
 */
public record Attempt(int number, State state, List<StateHistory> histories, Instant leaseUntil) {

    public Attempt {
        histories = List.copyOf(histories);
    }

    public Attempt transition(State next, Instant at) {
        return new Attempt(number, next, Lists.append(histories, new StateHistory(next, at)), leaseUntil);
    }

    public Attempt withLeaseUntil(Instant until) {
        return new Attempt(number, state, histories, until);
    }
}
