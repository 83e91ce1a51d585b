package io.millrace.core.event;

import io.millrace.core.execution.Maps;
import io.millrace.core.execution.State;
import io.millrace.core.execution.WorkerTimes;
import java.time.Instant;
import java.util.Map;

/**
 * A task run reached a terminal state; its outputs go to the outputs store, not into the state. {@code worker}: the
 * times of its worker on the attempt this ends, when a worker's result ended it (else null).
 */
public record TaskRunCompleted(String taskRunId, State state, Map<String, Object> outputs, String error,
        WorkerTimes worker, Instant at) implements Event {
    public TaskRunCompleted {
        outputs = Maps.immutable(outputs);
    }

    /** A run that no worker's result ended. */
    public TaskRunCompleted(String taskRunId, State state, Map<String, Object> outputs, String error, Instant at) {
        this(taskRunId, state, outputs, error, null, at);
    }
}
