package io.millrace.topology;

import io.millrace.core.cache.LruCache;
import io.millrace.core.command.Command;
import io.millrace.core.command.TimerFired;
import io.millrace.core.decide.Decider;
import io.millrace.core.decide.Rejection;
import io.millrace.core.flow.Flow;
import java.time.Instant;

/**
 * Under at-least-once a duplicate command may be a replay after a crash: its step's state is stored, but what the
 * step sent may not have reached Kafka, nor what the execution's later steps sent (none of them was committed either).
 * This sends again what those steps started ({@link Decider#reemit}). A timer that fires and finds its run moved on
 * counts as a duplicate: it comes back after a crash as the timers store is cached and restored as of the last commit.
 * An execution's steps are sent again once from any point since the processor started: later steps were decided and
 * sent live, so a re-sent dispatch that runs again, and whose result comes twice, sends nothing more.
 */
final class Reemission {
    private final boolean enabled;
    private final Decider decider;
    private final FlowLookup flows;
    private final Effects effects;
    private final ExecutorMetrics metrics;
    /** Per execution, the earliest step sent again since the processor started. */
    private final LruCache<String, Instant> sentAgainFrom = new LruCache<>(ExecutorProcessor.MAX_CACHED_EXECUTIONS);

    /** @param enabled whether duplicates are sent again at all: only where they can come from a crash */
    Reemission(boolean enabled, Decider decider, FlowLookup flows, Effects effects, ExecutorMetrics metrics) {
        this.enabled = enabled;
        this.decider = decider;
        this.flows = flows;
        this.effects = effects;
        this.metrics = metrics;
    }

    /** Whether a decision rejected its command as one that may be replayed after a crash. */
    static boolean replayed(Command command, Rejection rejection) {
        return rejection.kind() == Rejection.Kind.DUPLICATE
                || rejection.kind() == Rejection.Kind.STALE && command instanceof TimerFired;
    }

    /** Sends again what the step of {@code command}, found a duplicate, and the later ones started. */
    void duplicate(Command command, StoreBackedState state, Instant now) {
        if (!enabled) {
            return;
        }
        Instant stepAt = state.execution().map(e -> Decider.stepOf(e, command)).orElse(null);
        Instant from = stepAt == null ? Instant.MIN : stepAt;
        Instant sentFrom = sentAgainFrom.get(command.executionId());
        if (sentFrom != null && !from.isBefore(sentFrom)) {
            return;
        }
        sentAgainFrom.put(command.executionId(), from);
        Flow flow = flows.ofExecution(state);
        effects.prepare(command.executionId(), decider.reemit(state, flow, stepAt), state, flow, now,
                Effects.Sending.AGAIN).send();
        metrics.reemitted();
    }
}
