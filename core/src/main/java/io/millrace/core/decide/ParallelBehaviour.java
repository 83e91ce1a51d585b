package io.millrace.core.decide;

import io.millrace.core.flow.Parallel;

/** Parallel: each task in a lane of its own, at most {@code concurrent} at once. */
final class ParallelBehaviour implements FlowableBehaviour<Parallel> {
    @Override
    public Plan plan(Parallel task, Scope scope) {
        return Plan.eachApart(task.tasks(), task.concurrent());
    }
}
