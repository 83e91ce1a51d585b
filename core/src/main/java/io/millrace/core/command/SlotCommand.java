package io.millrace.core.command;

/**
 * A command to a flow's concurrency slots, keyed (and so partitioned and decided) by the flow's key, not by an
 * execution: every executor's executions of the flow meet there. See {@code io.millrace.core.concurrency.SlotKeeper}.
 */
public sealed interface SlotCommand extends Command permits AcquireSlot, ReleaseSlot {
    /** The flow's key, {@code namespace/id}: it has a '/', which no execution id has. */
    String flowKey();

    @Override
    default String key() {
        return flowKey();
    }
}
