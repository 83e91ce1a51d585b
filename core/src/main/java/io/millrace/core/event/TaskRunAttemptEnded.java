package io.millrace.core.event;

import io.millrace.core.execution.State;
import java.time.Instant;

/**
 * An attempt was lost without ending its task run: its worker stopped answering and the lease expired. Lost attempts
 * are counted apart from failed ones.
 */
public record TaskRunAttemptEnded(String taskRunId, int attempt, State state, String reason, Instant at)
        implements Event {
}
