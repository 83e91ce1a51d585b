package io.millrace.core.decide;

import io.millrace.core.cache.LruCache;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What a handler decides with: the execution's state, its flow, the time, the decider's settings, and the common
 * paths every handler of a running execution's command takes.
 */
final class DecisionContext {
    /** What stays the same from one decision to the next. */
    record Parts(DeciderSettings settings, Expressions expressions, Appliers appliers, Behaviours behaviours,
            LruCache<String, Lanes> plans, Subflows subflows, FlowSource flows) {
    }

    private final Parts parts;
    private final MutableExecutionState state;
    private final Flow flow;
    private final String executionId;
    private final Instant now;

    DecisionContext(Parts parts, MutableExecutionState state, Flow flow, String executionId, Instant now) {
        this.parts = parts;
        this.state = state;
        this.flow = flow;
        this.executionId = executionId;
        this.now = now;
    }

    Optional<Execution> execution() {
        return state.execution();
    }

    /** The execution's flow at its revision (a create's flow), or null when it cannot be found. */
    Flow flow() {
        return flow;
    }

    Instant now() {
        return now;
    }

    DeciderSettings settings() {
        return parts.settings();
    }

    /** A new decision's events and effects. */
    Step step() {
        return new Step(state, parts.appliers(), executionId);
    }

    /** A new decision's events and effects, with a walk of {@code flow} over them. */
    Advance advance(Flow flow) {
        return new Advance(step(), flow, now, parts);
    }

    /**
     * The common path of a command to a running execution: rejected STALE when it does not exist or has ended; failed
     * when its flow is gone; else {@code change}, then the walk of what it touched.
     */
    Decision onRunning(Consumer<Advance> change) {
        Optional<Decision> stale = unlessRunning();
        if (stale.isPresent()) {
            return stale.get();
        }
        Execution execution = state.execution().orElseThrow();
        if (flow == null) {
            return fail("Expected the flow " + execution.namespace() + "/" + execution.flowId() + " revision "
                    + execution.flowRevision() + " to exist, but it was not found", "flow missing");
        }
        Advance advance = advance(flow);
        change.accept(advance);
        advance.run();
        return advance.step().decision();
    }

    /** A STALE rejection unless the execution exists and runs. */
    private Optional<Decision> unlessRunning() {
        Optional<Decision> missing = unlessExists();
        if (missing.isPresent()) {
            return missing;
        }
        Execution execution = state.execution().orElseThrow();
        return execution.state().isTerminal()
                ? Optional.of(Decision.rejected(Rejection.Kind.STALE, "Execution " + executionId + " is already "
                        + execution.state()))
                : Optional.empty();
    }

    /** A STALE rejection unless the execution exists. */
    Optional<Decision> unlessExists() {
        return state.execution().isPresent() ? Optional.empty()
                : Optional.of(Decision.rejected(Rejection.Kind.STALE, "Expected execution " + executionId
                        + " to exist, but it does not"));
    }

    /**
     * Ends the running execution FAILED with {@code reason}, its open runs with {@code runError}, whatever its flow
     * (which may be gone).
     */
    Decision fail(String reason, String runError) {
        Execution execution = state.execution().orElseThrow();
        Advance advance = advance(emptyFlow(execution));
        advance.life().endOpenRuns(State.FAILED, runError);
        advance.endExecution(new ExecutionCompleted(State.FAILED, null, reason, now));
        Flow own = flow != null ? flow
                : parts.flows().find(execution.namespace(), execution.flowId(), execution.flowRevision());
        Places.giveBack(advance.step(), own, now);
        return advance.step().decision();
    }

    /** A stand-in flow for an execution whose flow is gone: nothing to run, only runs to end. */
    private static Flow emptyFlow(Execution execution) {
        return new Flow(execution.namespace(), execution.flowId(), execution.flowRevision(), Map.of(), List.of(),
                List.of(), List.of(), List.of(), List.of(), Map.of(), List.of(), false, "");
    }
}
