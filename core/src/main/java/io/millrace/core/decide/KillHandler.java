package io.millrace.core.decide;

import io.millrace.core.command.KillExecution;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Subflow;

/** Kills a running execution: KILLING, the children of its running subflows killed too, its open runs KILLED, then KILLED. */
final class KillHandler implements CommandHandler<KillExecution> {
    @Override
    public Decision decide(KillExecution kill, DecisionContext context) {
        return context.onRunning(advance -> {
            advance.step().emit(new ExecutionStateChanged(State.KILLING, advance.now()));
            for (TaskRun run : advance.step().execution().taskRuns()) {
                if (run.state() == State.RUNNING && advance.flow().task(run.taskId()).orElse(null) instanceof Subflow) {
                    advance.step().effect(Subflows.kill(kill.executionId(), run, advance.now()));
                }
            }
            advance.life().endOpenRuns(State.KILLED, "killed");
            advance.endExecution(new ExecutionCompleted(State.KILLED, null, "Killed on request", advance.now()));
        });
    }
}
