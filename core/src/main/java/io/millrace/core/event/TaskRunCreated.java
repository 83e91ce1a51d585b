package io.millrace.core.event;

import java.time.Instant;

/** A task run was created; {@code value} and {@code iteration} are set inside loops, null elsewhere. */
public record TaskRunCreated(String taskRunId, String taskId, String parentTaskRunId, String value, Integer iteration,
        Instant at) implements Event {
}
