package io.millrace.core.decide;

import io.millrace.core.expression.Truth;
import io.millrace.core.flow.If;

/** If: {@code then} when its condition renders truthy, else {@code else}. */
final class IfBehaviour implements FlowableBehaviour<If> {
    @Override
    public Plan plan(If task, Scope scope) throws Scope.Failure {
        return Plan.sequence(Truth.isTruthy(scope.render(task.condition())) ? task.then() : task.otherwise());
    }
}
