package io.millrace.core.event;

import io.millrace.core.execution.State;
import java.time.Instant;

/** An attempt ended without ending its task run, e.g. its worker was lost and the lease expired. */
public record TaskRunAttemptEnded(String taskRunId, int attempt, State state, String reason, Instant at)
        implements Event {
}
