package io.millrace.core.decide;

import io.millrace.core.command.AcquireSlot;
import io.millrace.core.command.ReleaseSlot;
import io.millrace.core.execution.State;
import io.millrace.core.flow.Flow;
import java.time.Instant;

/**
 * An execution's side of its flow's concurrency limit: it asks for a place before it runs (when created, and when
 * restarted), waits for the answer ({@link SlotAnswerHandler}), and gives the place back when it ends, however it
 * ends. The flow's slots decide ({@code io.millrace.core.concurrency.SlotKeeper}).
 */
final class Places {
    private Places() {
    }

    /** Whether an execution of {@code flow} must ask for a place before it runs. */
    static boolean limited(Flow flow) {
        return flow != null && flow.concurrency() != null;
    }

    /** The request for a place of an execution of a limited flow. */
    static Effect ask(Flow flow, String executionId, Instant at) {
        return new Effect.SendCommand(new AcquireSlot(flow.key(), executionId, flow.concurrency().limit(),
                flow.concurrency().behavior(), at));
    }

    /** An execution of a limited flow that ends gives its place back (or its place in the queue). */
    static void giveBack(Step step, Flow flow, Instant at) {
        if (limited(flow)) {
            step.effect(release(flow.key(), step.executionId(), at));
        }
    }

    static Effect release(String flowKey, String executionId, Instant at) {
        return new Effect.SendCommand(new ReleaseSlot(flowKey, executionId, at));
    }

    /** The states of an execution waiting for a place (CREATED, QUEUED, RESTARTED): neither holding one nor ended. */
    static boolean waits(State state) {
        return !state.isTerminal() && !state.holdsAPlace();
    }
}
