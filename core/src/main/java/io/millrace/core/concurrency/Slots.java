package io.millrace.core.concurrency;

import java.util.List;

/**
 * One flow's concurrency slots: the executions holding a place (running or paused, up to {@code limit}) and those
 * waiting for one, oldest first. {@code limit} is the one the last request came with.
 */
public record Slots(int limit, List<String> running, List<String> queued) {
    public static final Slots EMPTY = new Slots(0, List.of(), List.of());

    public Slots {
        running = List.copyOf(running);
        queued = List.copyOf(queued);
    }

    /** No execution holds or waits for a place: the flow's record can go. */
    public boolean unused() {
        return running.isEmpty() && queued.isEmpty();
    }
}
