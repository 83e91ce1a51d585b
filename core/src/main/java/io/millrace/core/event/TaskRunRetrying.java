package io.millrace.core.event;

import io.millrace.core.execution.WorkerTimes;
import java.time.Instant;

/**
 * An attempt failed and the task's retry policy allows another at {@code retryAt}: the run is RETRYING until then.
 * {@code worker}: the times of the worker whose result failed the attempt (null when none did).
 */
public record TaskRunRetrying(String taskRunId, int attempt, String error, Instant retryAt, WorkerTimes worker,
        Instant at) implements Event {

    /** An attempt that no worker's result failed. */
    public TaskRunRetrying(String taskRunId, int attempt, String error, Instant retryAt, Instant at) {
        this(taskRunId, attempt, error, retryAt, null, at);
    }
}
