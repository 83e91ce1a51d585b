package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.TaskDef;
import java.util.Map;
import java.util.Optional;

/** A lease ran out: the worker is taken for lost, and the attempt is dispatched again, a few times at most. */
final class LeaseExpiredHandler implements TimerHandler {
    @Override
    public Decision fire(Timer timer, DecisionContext context) {
        return context.onRunning(advance -> {
            TaskRun run = advance.runs().get(timer.taskRunId());
            Optional<Attempt> attempt = Optional.ofNullable(run).flatMap(TaskRun::currentAttempt)
                    .filter(a -> a.number() == timer.attempt() && a.state() == State.RUNNING && a.leaseUntil() != null);
            if (run == null || attempt.isEmpty() || attempt.get().leaseUntil().isAfter(advance.now())) {
                return; // outlived: a result or a heartbeat came first
            }
            advance.step().emit(new TaskRunAttemptEnded(timer.taskRunId(), timer.attempt(), State.FAILED,
                    "Lease expired: no result or heartbeat from the worker", advance.now()));
            TaskRun lost = advance.runs().get(run.id());
            TaskDef task = advance.flow().task(run.taskId()).orElse(null);
            if (lost.lostAttempts() < context.settings().maxLostAttempts() && task != null) {
                advance.life().startAttempt(lost, task);
                return;
            }
            advance.life().complete(lost, State.FAILED, Map.of(),
                    "Lost " + lost.lostAttempts() + " attempt(s) to workers that stopped answering", null);
        });
    }
}
