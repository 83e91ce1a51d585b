package io.millrace.core.event;

import java.time.Instant;

public record TaskRunCreated(String taskRunId, String taskId, String parentTaskRunId, String value, Instant at)
        implements Event {
}
