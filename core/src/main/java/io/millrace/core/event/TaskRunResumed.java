package io.millrace.core.event;

import io.millrace.core.execution.Maps;
import java.time.Instant;
import java.util.Map;

/**
 * A PAUSED run was resumed (by a call or its delay): RUNNING again. {@code outputs} (its {@code onResume} inputs, or
 * empty) go to the outputs store.
 */
public record TaskRunResumed(String taskRunId, Map<String, Object> outputs, Instant at) implements Event {
    public TaskRunResumed {
        outputs = Maps.immutable(outputs);
    }
}
