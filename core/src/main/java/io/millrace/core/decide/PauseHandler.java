package io.millrace.core.decide;

import io.millrace.core.command.PauseExecution;
import io.millrace.core.execution.State;

/** Pauses a RUNNING execution: the runs it started go on, no new one starts until it is resumed. */
final class PauseHandler implements CommandHandler<PauseExecution> {
    @Override
    public Decision decide(PauseExecution command, DecisionContext context) {
        return context.onRunning(advance -> {
            State state = advance.step().execution().state();
            if (state != State.RUNNING) {
                advance.step().reject(Rejection.Kind.STALE, "Expected a RUNNING execution to pause, but "
                        + command.executionId() + " is " + state);
                return;
            }
            Pausing.pause(advance);
        });
    }
}
