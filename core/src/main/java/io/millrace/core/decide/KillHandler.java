package io.millrace.core.decide;

import io.millrace.core.command.KillExecution;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Subflow;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.WorkerTask;

/**
 * Kills a running execution: KILLING; its tasks running on workers are stopped, the children of its running subflows
 * killed (unless the kill says not to cascade); its open runs KILLED, then it. A RETRIED one passes the kill on to the execution that retries it
 * ({@link RetryingExecutions#kill}).
 */
final class KillHandler implements CommandHandler<KillExecution> {
    @Override
    public Decision decide(KillExecution kill, DecisionContext context) {
        if (context.execution().filter(e -> e.state() == State.RETRIED).isPresent()) {
            return RetryingExecutions.kill(context.execution().orElseThrow(), context.flow(), kill, context.now());
        }
        return context.onRunning(advance -> {
            advance.step().emit(new ExecutionStateChanged(State.KILLING, advance.now()));
            boolean onWorkers = false;
            for (TaskRun run : advance.step().execution().taskRuns()) {
                TaskDef task = run.state() == State.RUNNING ? advance.flow().task(run.taskId()).orElse(null) : null;
                if (task instanceof Subflow && kill.cascade()) {
                    advance.step().effect(Subflows.kill(kill.executionId(), run, advance.now()));
                }
                onWorkers |= task instanceof WorkerTask;
            }
            if (onWorkers) {
                advance.step().effect(new Effect.StopTasks(kill.executionId(), advance.now()));
            }
            advance.life().endOpenRuns(State.KILLED, "killed");
            advance.endExecution(new ExecutionCompleted(State.KILLED, null, "Killed on request", advance.now()));
        });
    }
}
