package io.millrace.core.command;

import io.millrace.core.flow.Concurrency;
import java.time.Instant;

/**
 * An execution of a flow with a concurrency limit asks for a place to run, under the limit and behavior of its flow
 * revision; answered by a {@link SlotAnswer}. Sent twice, it is answered again as the first time.
 */
public record AcquireSlot(String flowKey, String executionId, int limit, Concurrency.Behavior behavior, Instant at)
        implements SlotCommand {
}
