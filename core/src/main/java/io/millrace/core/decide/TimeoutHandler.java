package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.TaskDef;
import java.util.Map;

/**
 * A flowable ran out of time: what runs inside it is killed, so it fails; its own errors and finally still run (no
 * new task of its main branch starts after a failure).
 */
final class TimeoutHandler implements TimerHandler {
    @Override
    public Decision fire(Timer timer, DecisionContext context) {
        return context.onRunning(advance -> {
            TaskRun run = advance.runs().get(timer.taskRunId());
            TaskDef task = run == null ? null : advance.flow().task(run.taskId()).orElse(null);
            if (run == null || task == null || run.state() != State.RUNNING
                    || run.currentAttempt().map(a -> a.number() != timer.attempt()).orElse(true)) {
                return;
            }
            if (!advance.life().killInside(run, "Timeout of '" + run.taskId() + "' after " + task.options().timeout())) {
                advance.life().end(run, task, State.FAILED, Map.of(), "Timeout after " + task.options().timeout());
            }
        });
    }
}
