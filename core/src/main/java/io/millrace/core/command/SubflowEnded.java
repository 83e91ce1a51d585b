package io.millrace.core.command;

import io.millrace.core.execution.Maps;
import io.millrace.core.execution.State;
import java.time.Instant;
import java.util.Map;

/**
 * A child execution that a Subflow run waits for has ended: the notice to its parent, keyed by the parent's id
 * ({@code executionId}), for the run's {@code attempt} that started it. {@code outputs} are the child's, as the
 * Subflow task asks for them (null: none); {@code error}, when set, fails the run: the child could not start, or its
 * outputs could not be rendered.
 */
public record SubflowEnded(String executionId, String taskRunId, int attempt, String childExecutionId, State state,
        Map<String, Object> outputs, String error, Instant at) implements Command {
    public SubflowEnded {
        outputs = outputs == null ? null : Maps.immutable(outputs);
    }
}
