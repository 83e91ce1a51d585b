package io.millrace.core.decide;

import io.millrace.core.flow.Sequential;

/** Sequential: its tasks one after the other. */
final class SequentialBehaviour implements FlowableBehaviour<Sequential> {
    @Override
    public Plan plan(Sequential task, Scope scope) {
        return Plan.sequence(task.tasks());
    }
}
