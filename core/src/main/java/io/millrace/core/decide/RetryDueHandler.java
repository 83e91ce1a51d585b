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
            TaskRun run = advance.runs().get(timer.taskRunId());
            TaskDef task = run == null ? null : advance.flow().task(run.taskId()).orElse(null);
            if (run == null || task == null || run.state() != State.RETRYING
                    || run.currentAttempt().map(a -> a.number() != timer.attempt()).orElse(true)) {
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
