package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Subflow;
import io.millrace.core.flow.TaskDef;
import java.util.Map;

/**
 * A flowable or subflow ran out of time: what runs inside it (or the subflow's child) is killed, so it fails; a
 * flowable's own errors and finally still run (no new task of its main branch starts after a failure).
 */
final class TimeoutHandler implements TimerHandler {
    @Override
    public Decision fire(Timer timer, DecisionContext context) {
        return context.onRunning(advance -> {
            TaskRun run = TimerHandler.guardedRun(timer, advance, State.RUNNING);
            TaskDef task = run == null ? null : advance.flow().task(run.taskId()).orElse(null);
            if (task == null) {
                return; // outlived: the flowable ended first
            }
            if (task instanceof Subflow) {
                advance.step().effect(Subflows.kill(advance.step().executionId(), run, advance.now()));
            }
            if (!advance.life().killInside(run, "Timeout of '" + run.taskId() + "' after " + task.options().timeout())) {
                advance.life().skipReset(run.id()); // runs a retry reset that its walk did not reach (held by a pause)
                advance.life().end(run, task, State.FAILED, Map.of(), "Timeout after " + task.options().timeout(),
                        null);
            }
        });
    }
}
