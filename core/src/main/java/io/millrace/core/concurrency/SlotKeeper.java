package io.millrace.core.concurrency;

import io.millrace.core.command.AcquireSlot;
import io.millrace.core.command.ReleaseSlot;
import io.millrace.core.command.SlotAnswer;
import io.millrace.core.command.SlotCommand;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides a flow's concurrency slots, pure as the decider is: an execution that asks gets a place while fewer than the
 * limit hold one; past it, it waits in the queue (QUEUE, up to {@code maxQueued}), or is told to end (CANCEL, FAIL).
 * A release frees the place and hands it to the oldest queued execution. Every command may come twice: an execution
 * that asks again is answered again as it was, and a release of an execution that holds no place (a duplicate, or
 * one whose answer a crash may have lost) tells every holder again that it runs, so a place handed over is never lost.
 */
public final class SlotKeeper {
    private final int maxQueued;

    /** @param maxQueued how many executions of one flow may wait for a place ({@code max-queued-executions}) */
    public SlotKeeper(int maxQueued) {
        if (maxQueued < 0) {
            throw new IllegalArgumentException("Expected max-queued-executions to be 0 or more, but was " + maxQueued);
        }
        this.maxQueued = maxQueued;
    }

    /** The slots after a command, and the answers to send. */
    public record Outcome(Slots slots, List<SlotAnswer> answers) {
    }

    public Outcome decide(Slots slots, SlotCommand command) {
        return switch (command) {
            case AcquireSlot acquire -> acquire(slots, acquire);
            case ReleaseSlot release -> release(slots, release);
        };
    }

    private Outcome acquire(Slots slots, AcquireSlot acquire) {
        String id = acquire.executionId();
        var running = new ArrayList<>(slots.running());
        var queued = new ArrayList<>(slots.queued());
        var answers = new ArrayList<SlotAnswer>();
        promote(acquire.flowKey(), acquire.limit(), running, queued, acquire.at(), answers); // the limit may have grown
        if (running.contains(id)) {
            answers.add(answer(acquire, SlotAnswer.Answer.GRANTED, null));
        } else if (queued.contains(id)) {
            answers.add(answer(acquire, SlotAnswer.Answer.QUEUED, null));
        } else if (running.size() < acquire.limit()) {
            running.add(id);
            answers.add(answer(acquire, SlotAnswer.Answer.GRANTED, null));
        } else {
            String full = "Flow " + acquire.flowKey() + " has reached its concurrency limit of " + acquire.limit();
            switch (acquire.behavior()) {
                case CANCEL -> answers.add(answer(acquire, SlotAnswer.Answer.CANCELLED, full));
                case FAIL -> answers.add(answer(acquire, SlotAnswer.Answer.FAILED, full));
                case QUEUE -> {
                    if (queued.size() >= maxQueued) {
                        answers.add(answer(acquire, SlotAnswer.Answer.FAILED, full + ", and " + queued.size()
                                + " executions wait for a place already, the max-queued-executions limit"));
                    } else {
                        queued.add(id);
                        answers.add(answer(acquire, SlotAnswer.Answer.QUEUED, null));
                    }
                }
            }
        }
        return new Outcome(new Slots(acquire.limit(), running, queued), answers);
    }

    /** Hands the free places to the oldest queued executions. */
    private static void promote(String flowKey, int limit, List<String> running, List<String> queued, Instant at,
            List<SlotAnswer> answers) {
        while (running.size() < limit && !queued.isEmpty()) {
            String next = queued.removeFirst();
            running.add(next);
            answers.add(granted(flowKey, next, at));
        }
    }

    private Outcome release(Slots slots, ReleaseSlot release) {
        var running = new ArrayList<>(slots.running());
        var queued = new ArrayList<>(slots.queued());
        var answers = new ArrayList<SlotAnswer>();
        if (!running.remove(release.executionId()) && !queued.remove(release.executionId())) {
            running.forEach(id -> answers.add(granted(release.flowKey(), id, release.at())));
            return new Outcome(slots, answers);
        }
        promote(release.flowKey(), slots.limit(), running, queued, release.at(), answers);
        return new Outcome(new Slots(slots.limit(), running, queued), answers);
    }

    private static SlotAnswer answer(AcquireSlot acquire, SlotAnswer.Answer answer, String reason) {
        return new SlotAnswer(acquire.executionId(), acquire.flowKey(), answer, reason, acquire.at());
    }

    private static SlotAnswer granted(String flowKey, String executionId, Instant at) {
        return new SlotAnswer(executionId, flowKey, SlotAnswer.Answer.GRANTED, null, at);
    }
}
