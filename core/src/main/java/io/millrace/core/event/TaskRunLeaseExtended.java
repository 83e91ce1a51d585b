package io.millrace.core.event;

import java.time.Instant;

/** A worker's heartbeat pushed the attempt's lease further. */
public record TaskRunLeaseExtended(String taskRunId, int attempt, Instant leaseUntil, Instant at) implements Event {
}
