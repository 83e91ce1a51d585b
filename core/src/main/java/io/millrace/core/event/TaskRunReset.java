package io.millrace.core.event;

import java.time.Instant;

/**
 * A retried flowable runs its children again: this run, inside it, is back to CREATED, keeping its attempts, and
 * starts again as its parent decides.
 */
public record TaskRunReset(String taskRunId, Instant at) implements Event {
}
