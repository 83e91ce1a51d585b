package io.millrace.core.event;

import java.time.Instant;

/** An ended execution goes on from its failed runs: RESTARTED, its outputs and error of its last end cleared. */
public record ExecutionRestarted(Instant at) implements Event {
}
