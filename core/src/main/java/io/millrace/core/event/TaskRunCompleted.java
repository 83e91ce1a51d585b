package io.millrace.core.event;

import io.millrace.core.execution.Maps;
import io.millrace.core.execution.State;
import java.time.Instant;
import java.util.Map;

/** A task run reached a terminal state; its outputs go to the outputs store, not into the state. */
public record TaskRunCompleted(String taskRunId, State state, Map<String, Object> outputs, String error, Instant at)
        implements Event {
    public TaskRunCompleted {
        outputs = Maps.immutable(outputs);
    }
}
