package io.millrace.core.command;

import io.millrace.core.execution.Maps;
import io.millrace.core.execution.State;
import java.time.Instant;
import java.util.Map;

/**
 * A worker's report on one attempt of a task run. {@code RUNNING} is a heartbeat that extends the
 * attempt's lease; SUCCESS, WARNING and FAILED end it. Results for another attempt than the current
 * one, or for a task run already ended, are stale and ignored.
 */
public record TaskResult(
        String executionId,
        String taskRunId,
        int attempt,
        State state,
        Map<String, Object> outputs,
        String error,
        String workerId,
        Instant at) implements Command {

    public TaskResult {
        outputs = Maps.immutable(outputs);
    }
}
