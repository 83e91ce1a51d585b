package io.millrace.core.event;

import io.millrace.core.execution.Maps;
import io.millrace.core.execution.State;
import java.time.Instant;
import java.util.Map;

/** The execution reached its terminal state; emitted exactly once per execution. */
public record ExecutionCompleted(State state, Map<String, Object> outputs, String error, Instant at) implements Event {
    public ExecutionCompleted {
        outputs = outputs == null ? null : Maps.immutable(outputs);
    }
}
