package io.millrace.core.command;

import io.millrace.core.execution.Maps;
import io.millrace.core.execution.State;
import io.millrace.core.execution.WorkerTimes;
import java.time.Instant;
import java.util.Map;

/**
 * A worker's report on one attempt of a task run. {@code RUNNING} is a heartbeat that extends the
 * attempt's lease; SUCCESS, WARNING and FAILED end it. Results for another attempt than the current
 * one, or for a task run already ended, are stale and ignored. {@code worker}: when the worker received, started and
 * ended the attempt, on a final result; null on a heartbeat and from a worker that does not report them.
 */
public record TaskResult(
        String executionId,
        String taskRunId,
        int attempt,
        State state,
        Map<String, Object> outputs,
        String error,
        String workerId,
        WorkerTimes worker,
        Instant at) implements Command {

    public TaskResult {
        outputs = Maps.immutable(outputs);
    }

    /** A result without the worker's times. */
    public TaskResult(String executionId, String taskRunId, int attempt, State state, Map<String, Object> outputs,
            String error, String workerId, Instant at) {
        this(executionId, taskRunId, attempt, state, outputs, error, workerId, null, at);
    }
}
