package io.millrace.core.execution;

/** States of executions, task runs and attempts, with Kestra's names. */
public enum State {
    CREATED,
    RUNNING,
    PAUSED,
    RETRYING,
    KILLING,
    SUCCESS,
    WARNING,
    FAILED,
    KILLED,
    SKIPPED,
    /** A FAILED or KILLED execution asked to go on from its failed runs; it is RUNNING again in the same step. */
    RESTARTED,
    /** Waiting for a place under its flow's concurrency limit. */
    QUEUED,
    /** Ended without running, e.g. refused by its flow's concurrency limit. */
    CANCELLED,
    /** Ended FAILED and retried as a new execution. */
    RETRIED;

    public boolean isTerminal() {
        return switch (this) {
            case SUCCESS, WARNING, FAILED, KILLED, SKIPPED, CANCELLED, RETRIED -> true;
            default -> false;
        };
    }

    /**
     * Whether an execution in this state runs (or is paused, or being killed), as opposed to waiting for a place
     * under its flow's concurrency limit (CREATED, QUEUED, RESTARTED) or ended: what counts toward a bound on running
     * executions.
     */
    public boolean holdsAPlace() {
        return this == RUNNING || this == PAUSED || this == KILLING;
    }

    public boolean isFailure() {
        return this == FAILED || this == KILLED;
    }
}
