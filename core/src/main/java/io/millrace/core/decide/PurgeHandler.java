package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.execution.Execution;
import java.util.Optional;

/**
 * A finished execution's retention is over: its state is removed. Refused (STALE) for one that still runs, and for the
 * timer of an end before a restart (the end after it has its own).
 */
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
        if (timer.attempt() != execution.restarts()) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected the purge timer of " + execution.id()
                    + "'s last end, but it was restarted after the end this timer follows");
        }
        Step step = context.step();
        step.emit(new ExecutionPurged(context.now()));
        return step.decision();
    }
}
