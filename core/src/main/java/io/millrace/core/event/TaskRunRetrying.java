package io.millrace.core.event;

import java.time.Instant;

/** An attempt failed and the task's retry policy allows another at {@code retryAt}: the run is RETRYING until then. */
public record TaskRunRetrying(String taskRunId, int attempt, String error, Instant retryAt, Instant at) implements Event {
}
