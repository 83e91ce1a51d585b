package io.millrace.core.decide;

import io.millrace.core.execution.State;
import io.millrace.core.flow.AllowFailure;

/** AllowFailure: its tasks one after the other; a failure inside it ends it WARNING. */
final class AllowFailureBehaviour implements FlowableBehaviour<AllowFailure> {
    @Override
    public Plan plan(AllowFailure task, Scope scope) {
        return Plan.sequence(task.tasks());
    }

    @Override
    public State outcome(AllowFailure task, State guessed) {
        return guessed.isFailure() ? State.WARNING : guessed;
    }
}
