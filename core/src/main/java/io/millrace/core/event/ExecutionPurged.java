package io.millrace.core.event;

import java.time.Instant;

/** The finished execution's retention ended: its state and outputs are removed; its id may be used again. */
public record ExecutionPurged(Instant at) implements Event {
}
