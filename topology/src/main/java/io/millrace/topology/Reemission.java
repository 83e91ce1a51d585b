package io.millrace.topology;

import io.millrace.core.cache.LruCache;
import io.millrace.core.command.Command;
import io.millrace.core.command.TaskResult;
import io.millrace.core.decide.Decider;
import io.millrace.core.flow.Flow;
import java.time.Instant;

/**
 * Under at-least-once a duplicate command may be a replay after a crash: its step's state is stored, but what the
 * step sent may not have reached Kafka. This sends again only what that step started ({@link Decider#reemit}), once per
 * command since the processor started: a re-sent dispatch runs again, and its result comes twice too.
 */
final class Reemission {
    private final boolean enabled;
    private final Decider decider;
    private final FlowLookup flows;
    private final Effects effects;
    private final ExecutorMetrics metrics;
    /** The commands whose step was sent again since the processor started (by replay key). */
    private final LruCache<String, Boolean> reemitted = new LruCache<>(ExecutorProcessor.MAX_CACHED_EXECUTIONS);

    /** @param enabled whether duplicates are sent again at all: only where they can come from a crash */
    Reemission(boolean enabled, Decider decider, FlowLookup flows, Effects effects, ExecutorMetrics metrics) {
        this.enabled = enabled;
        this.decider = decider;
        this.flows = flows;
        this.effects = effects;
        this.metrics = metrics;
    }

    /** Sends again what the step of {@code command}, found a duplicate, started; the state is as that step left it. */
    void duplicate(Command command, StoreBackedState state, Instant now) {
        if (!enabled) {
            return;
        }
        String replayed = replayKey(command);
        if (reemitted.get(replayed) != null) {
            return;
        }
        reemitted.put(replayed, Boolean.TRUE);
        Flow flow = flows.ofExecution(state);
        Instant stepAt = state.execution().map(e -> Decider.stepOf(e, command)).orElse(null);
        effects.prepare(command.executionId(), decider.reemit(state, flow, stepAt), state, flow, now,
                Effects.Sending.AGAIN).send();
        metrics.reemitted();
    }

    /** What makes a command the same as another: the key of a replay. */
    private static String replayKey(Command command) {
        return switch (command) {
            case TaskResult result -> result.taskRunId() + "/" + result.attempt() + "/" + result.state();
            default -> command.executionId() + "/" + command.getClass().getSimpleName();
        };
    }
}
