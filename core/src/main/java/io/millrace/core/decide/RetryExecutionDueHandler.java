package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import java.util.List;
import java.util.Optional;

/**
 * A RETRIED execution's wait is over: the new execution that retries it is started (a command to its own partition;
 * sent twice, the second is a duplicate there). The RETRIED execution itself does not change.
 */
final class RetryExecutionDueHandler implements TimerHandler {
    @Override
    public Decision fire(Timer timer, DecisionContext context) {
        Optional<Decision> missing = context.unlessExists();
        if (missing.isPresent()) {
            return missing.get();
        }
        Execution execution = context.execution().orElseThrow();
        if (execution.state() != State.RETRIED) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected a RETRIED execution to retry, but "
                    + execution.id() + " is " + execution.state());
        }
        return new Decision(List.of(), List.of(new Effect.SendCommand(RetryingExecutions.next(execution,
                context.now()))), Optional.empty());
    }
}
