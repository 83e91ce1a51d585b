package io.millrace.core.event;

import io.millrace.core.execution.State;
import java.time.Instant;

/** The execution moved to a non-terminal state (RUNNING, KILLING, ...). */
public record ExecutionStateChanged(State state, Instant at) implements Event {
}
