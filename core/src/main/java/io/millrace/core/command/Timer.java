package io.millrace.core.command;

import java.time.Instant;

/**
 * A wake-up the executor keeps for an execution. A lease timer is cancelled when a result ends or extends its
 * attempt; still, any timer that fires after what it guarded has moved on (a cancel lost in a crash, a kill) is
 * simply ignored.
 */
public record Timer(String executionId, Kind kind, String taskRunId, int attempt, Instant dueAt) {

    public enum Kind {
        /** The lease of a task run attempt ends: re-dispatch unless a result or heartbeat came. */
        LEASE,
        /**
         * A finished execution's retention ends: remove its state. No task run: taskRunId is empty; attempt is how many
         * times the execution had been restarted when it ended, so that the timer of an end before a restart is ignored.
         */
        PURGE,
        /** A RETRYING task run's wait is over: start its next attempt. {@code attempt} is the one that failed. */
        RETRY,
        /** A flowable's {@code timeout} is over: fail it unless its attempt ended already. */
        TIMEOUT,
        /** A PAUSED run's delay (it resumes) or timeout (it fails) is over, unless it was resumed first. */
        RESUME,
        /**
         * A RETRIED execution's wait is over: the new execution that retries it starts (a retry's
         * {@code CREATE_NEW_EXECUTION}). No task run: taskRunId is empty, attempt 0.
         */
        RETRY_EXECUTION
    }

    /** The wake-up that ends the retention of a finished execution never restarted. */
    public static Timer purge(String executionId, Instant dueAt) {
        return purge(executionId, 0, dueAt);
    }

    /** The wake-up that ends a finished execution's retention, after its end that followed {@code restarts} restarts. */
    public static Timer purge(String executionId, int restarts, Instant dueAt) {
        return new Timer(executionId, Kind.PURGE, "", restarts, dueAt);
    }

    /** A stable identity: two timers with the same id are the same wake-up. */
    public String id() {
        return executionId + "/" + kind + "/" + taskRunId + "/" + attempt;
    }
}
