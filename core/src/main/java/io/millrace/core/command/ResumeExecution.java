package io.millrace.core.command;

import io.millrace.core.execution.Maps;
import java.time.Instant;
import java.util.Map;

/**
 * Resume a PAUSED execution: its PAUSED run {@code taskRunId} (null: the first one) goes on with {@code inputs},
 * checked against that Pause task's {@code onResume} inputs; an execution paused by a call, with no PAUSED run, runs
 * again. A resume that names a run no longer PAUSED (sent twice, or late) changes nothing.
 */
public record ResumeExecution(String executionId, String taskRunId, Map<String, Object> inputs, Instant requestedAt)
        implements Command {
    public ResumeExecution {
        inputs = Maps.immutable(inputs);
    }
}
