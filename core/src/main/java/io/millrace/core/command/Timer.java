package io.millrace.core.command;

import java.time.Instant;

/**
 * A wake-up the executor keeps for an execution. A timer that fires after what it guarded has moved
 * on is simply ignored, so timers are never cancelled, only outlived.
 */
public record Timer(String executionId, Kind kind, String taskRunId, int attempt, Instant dueAt) {

    public enum Kind {
        /** The lease of a task run attempt ends: re-dispatch unless a result or heartbeat came. */
        LEASE
    }

    /** A stable identity: two timers with the same id are the same wake-up. */
    public String id() {
        return executionId + "/" + kind + "/" + taskRunId + "/" + attempt;
    }
}
