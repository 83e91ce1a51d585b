package io.millrace.core.event;

import java.time.Instant;

/** An attempt was dispatched to a worker; the task run is RUNNING until the lease runs out. */
public record TaskRunAttemptStarted(String taskRunId, int attempt, Instant leaseUntil, Instant at) implements Event {
}
