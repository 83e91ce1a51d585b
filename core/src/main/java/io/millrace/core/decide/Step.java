package io.millrace.core.decide;

import io.millrace.core.event.Event;
import io.millrace.core.execution.Execution;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** One decision in progress: each event is applied as it is appended, so later logic sees it. */
final class Step {
    private final MutableExecutionState state;
    private final Appliers appliers;
    private final String executionId;
    private final List<Event> events = new ArrayList<>();
    private final List<Effect> effects = new ArrayList<>();
    private Rejection rejection;

    Step(MutableExecutionState state, Appliers appliers, String executionId) {
        this.state = state;
        this.appliers = appliers;
        this.executionId = executionId;
    }

    void emit(Event event) {
        appliers.apply(event, state);
        events.add(event);
    }

    void effect(Effect effect) {
        effects.add(effect);
    }

    void reject(Rejection.Kind kind, String reason) {
        rejection = new Rejection(kind, reason);
    }

    String executionId() {
        return executionId;
    }

    Execution execution() {
        return state.execution().orElseThrow();
    }

    ExecutionView state() {
        return state;
    }

    Decision decision() {
        if (!events.isEmpty()) {
            effects.add(new Effect.EmitSnapshot(executionId));
        }
        return new Decision(events, effects, Optional.ofNullable(rejection));
    }
}
