package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.execution.Execution;
import java.util.Optional;

/** A finished execution's retention is over: its state is removed. Refused (STALE) for one that still runs. */
final class PurgeHandler implements TimerHandler {
    @Override
    public Decision fire(Timer timer, DecisionContext context) {
        Optional<Decision> missing = context.unlessExists();
        if (missing.isPresent()) {
            return missing.get();
        }
        Execution execution = context.execution().orElseThrow();
        if (!execution.state().isTerminal()) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected a finished execution to purge, but "
                    + execution.id() + " is " + execution.state());
        }
        Step step = context.step();
        step.emit(new ExecutionPurged(context.now()));
        return step.decision();
    }
}
