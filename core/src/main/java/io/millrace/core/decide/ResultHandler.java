package io.millrace.core.decide;

import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import java.time.Instant;
import java.util.Optional;

/**
 * A worker's result for an attempt: RUNNING extends its lease (a heartbeat), SUCCESS, WARNING and FAILED end it. A
 * result applied already is a DUPLICATE; one for an attempt that is no longer current is STALE.
 */
final class ResultHandler implements CommandHandler<TaskResult> {
    @Override
    public Decision decide(TaskResult result, DecisionContext context) {
        boolean applied = context.execution().flatMap(e -> e.taskRun(result.taskRunId()))
                .filter(run -> alreadyApplied(run, result)).isPresent();
        if (applied) {
            return Decision.rejected(Rejection.Kind.DUPLICATE, "Result " + result.state() + " of " + result.taskRunId()
                    + " attempt " + result.attempt() + " was applied already");
        }
        return context.onRunning(advance -> apply(result, advance, context));
    }

    /** The result's attempt ended already, in the state the result reports: this result was applied before. */
    private static boolean alreadyApplied(TaskRun run, TaskResult result) {
        return run.attempts().stream()
                .anyMatch(a -> a.number() == result.attempt() && a.state() == result.state() && result.state().isTerminal());
    }

    private static void apply(TaskResult result, Advance advance, DecisionContext context) {
        Step step = advance.step();
        TaskRun run = advance.runs().get(result.taskRunId());
        Optional<Attempt> attempt = Optional.ofNullable(run).flatMap(TaskRun::currentAttempt);
        if (run == null || run.state() != State.RUNNING || attempt.isEmpty()
                || attempt.get().number() != result.attempt() || attempt.get().leaseUntil() == null) {
            step.reject(Rejection.Kind.STALE, "Expected a result for the current attempt of a running task run, but "
                    + result.taskRunId() + " attempt " + result.attempt() + " is not one");
            return;
        }
        // the attempt's lease timer would fire only to be ignored: cancel it before a new one may take its key
        Timer lease = Timers.lease(step.executionId(), result.taskRunId(), result.attempt(), attempt.get().leaseUntil());
        switch (result.state()) {
            case RUNNING -> {
                Instant until = advance.now().plus(context.settings().lease());
                step.emit(new TaskRunLeaseExtended(result.taskRunId(), result.attempt(), until, advance.now()));
                step.effect(new Effect.CancelTimer(lease));
                step.effect(new Effect.ScheduleTimer(Timers.lease(step.executionId(), result.taskRunId(),
                        result.attempt(), until)));
            }
            case SUCCESS, WARNING, FAILED -> {
                step.effect(new Effect.CancelTimer(lease));
                advance.life().end(run, advance.flow().task(run.taskId()).orElse(null), result.state(),
                        result.outputs(), result.error(), result.worker());
            }
            default -> step.reject(Rejection.Kind.INVALID, "Expected a worker result of RUNNING, SUCCESS, WARNING or "
                    + "FAILED, but got " + result.state());
        }
    }
}
