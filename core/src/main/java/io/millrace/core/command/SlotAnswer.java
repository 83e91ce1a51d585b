package io.millrace.core.command;

import java.time.Instant;

/**
 * The answer of a flow's concurrency slots to one of its executions: it may run (GRANTED), waits for a place (QUEUED),
 * or ends without running (CANCELLED, FAILED, with the reason).
 */
public record SlotAnswer(String executionId, String flowKey, Answer answer, String reason, Instant at) implements Command {
    public enum Answer { GRANTED, QUEUED, CANCELLED, FAILED }
}
