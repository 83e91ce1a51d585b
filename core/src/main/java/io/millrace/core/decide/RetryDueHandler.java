package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.TaskDef;

/** A RETRYING run's wait is over: its next attempt starts (a flowable runs its children again). */
final class RetryDueHandler implements TimerHandler {
    @Override
    public Decision fire(Timer timer, DecisionContext context) {
        return context.onRunning(advance -> {
            TaskRun run = TimerHandler.guardedRun(timer, advance, State.RETRYING);
            TaskDef task = run == null ? null : advance.flow().task(run.taskId()).orElse(null);
            if (task == null) {
                return; // outlived: the run was killed or moved on
            }
            if (task instanceof Flowable flowable) {
                advance.life().restart(run, flowable);
            } else {
                advance.life().startAttempt(run, task);
            }
        });
    }
}
