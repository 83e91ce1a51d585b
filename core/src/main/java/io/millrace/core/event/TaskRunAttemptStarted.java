package io.millrace.core.event;

import java.time.Instant;

/**
 * An attempt started: the task run is RUNNING. A worker task's attempt was dispatched and holds a lease until
 * {@code leaseUntil}; a flowable's attempt has no lease (null).
 */
public record TaskRunAttemptStarted(String taskRunId, int attempt, Instant leaseUntil, Instant at) implements Event {
}
