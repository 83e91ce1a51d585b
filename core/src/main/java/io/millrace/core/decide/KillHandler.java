package io.millrace.core.decide;

import io.millrace.core.command.KillExecution;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.execution.State;

/** Kills a running execution: KILLING, its open runs KILLED, then KILLED. */
final class KillHandler implements CommandHandler<KillExecution> {
    @Override
    public Decision decide(KillExecution kill, DecisionContext context) {
        return context.onRunning(advance -> {
            advance.step().emit(new ExecutionStateChanged(State.KILLING, advance.now()));
            advance.life().endOpenRuns(State.KILLED, "killed");
            advance.endExecution(new ExecutionCompleted(State.KILLED, null, "Killed on request", advance.now()));
        });
    }
}
