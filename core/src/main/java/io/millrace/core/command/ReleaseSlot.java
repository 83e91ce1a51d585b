package io.millrace.core.command;

import java.time.Instant;

/**
 * An execution of a flow with a concurrency limit ended: its place (or its place in the queue) is free, and the
 * first queued execution gets it. Sent twice, the second changes nothing.
 */
public record ReleaseSlot(String flowKey, String executionId, Instant at) implements SlotCommand {
}
