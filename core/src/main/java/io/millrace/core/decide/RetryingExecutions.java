package io.millrace.core.decide;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.Timer;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.RetryPolicy;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.TaskOptions;
import io.millrace.core.flow.WorkerTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A retry's {@code CREATE_NEW_EXECUTION}: a run that fails ends RETRIED with the flowables around it, and so does its
 * execution (the runs still open elsewhere are KILLED); after the policy's wait a new execution of the flow's same
 * revision starts, with the same inputs, labels and trigger, its lineage naming the first execution of the chain and
 * counting the attempt. Once the policy allows no more, the run fails as any.
 */
final class RetryingExecutions {
    private RetryingExecutions() {
    }

    /**
     * Ends the execution RETRIED if {@code retry} allows another execution; false when it does not. {@code worker}: the
     * times of the worker whose result failed the run, or null.
     */
    static boolean retry(Advance advance, TaskRun failed, RetryPolicy retry, String error, WorkerTimes worker) {
        Instant now = advance.now();
        Execution execution = advance.step().execution();
        Instant at = Timers.nextExecutionAt(retry, execution, now);
        if (at == null) {
            return false;
        }
        Step step = advance.step();
        String reason = "Task '" + failed.taskId() + "' failed and is retried as a new execution"
                + (error == null ? "" : ": " + error);
        step.emit(new TaskRunCompleted(failed.id(), State.RETRIED, Map.of(), error, worker, now));
        for (TaskRun ancestor : advance.runs().ancestors(advance.runs().get(failed.id()))) {
            step.emit(new TaskRunCompleted(ancestor.id(), State.RETRIED, Map.of(), reason, now));
        }
        boolean onWorkers = false;
        for (TaskRun run : execution.taskRuns()) {
            if (!run.state().isTerminal() && run.state() != State.CREATED) {
                onWorkers |= run.state() == State.RUNNING
                        && advance.flow().task(run.taskId()).orElse(null) instanceof WorkerTask;
            }
        }
        if (onWorkers) {
            step.effect(new Effect.StopTasks(execution.id(), now));
        }
        advance.life().endOpenRuns(State.KILLED, "its execution was retried as a new one");
        advance.endExecution(new ExecutionCompleted(State.RETRIED, null, reason, now));
        step.effect(new Effect.ScheduleTimer(Timers.retryExecution(execution.id(), at)));
        return true;
    }

    /**
     * The policy of the run whose failure ended a RETRIED execution, if it is known: for {@link #timerOf}. The
     * RETRIED runs are that run and the flowables around it, so it is the last created of those with such a policy.
     */
    private static Optional<RetryPolicy> policyOf(Execution execution, Flow flow) {
        return execution.taskRuns().stream()
                .filter(run -> run.state() == State.RETRIED)
                .map(run -> flow.task(run.taskId()).map(TaskDef::options).map(TaskOptions::retry).orElse(null))
                .filter(retry -> retry != null && retry.behavior() == RetryPolicy.Behavior.CREATE_NEW_EXECUTION)
                .reduce((first, second) -> second);
    }

    /**
     * The timer that starts the execution retrying a RETRIED one, if the policy of the run whose failure ended it is
     * known: for {@link ImpliedEffects} to schedule it again and for a kill to cancel it.
     */
    static Optional<Timer> timerOf(Execution retried, Flow flow) {
        if (flow == null) {
            return Optional.empty();
        }
        Instant endedAt = retried.histories().getLast().date();
        return policyOf(retried, flow).map(retry -> Timers.nextExecutionAt(retry, retried, endedAt))
                .map(at -> Timers.retryExecution(retried.id(), at));
    }

    /** The start of the execution that retries a RETRIED one: its id comes from the one it retries. */
    static CreateExecution next(Execution retried, Instant now) {
        return new CreateExecution(nextId(retried), retried.namespace(), retried.flowId(), retried.flowRevision(),
                retried.inputs(), retried.labels(), now, retried.trigger(), retried.lineage().next(retried.id()));
    }

    /**
     * A kill of a RETRIED execution reaches its chain: the start of the execution that retries it is called off (its
     * timer cancelled), and that execution, if it started already, is killed in turn (a kill of one that never starts
     * finds nothing). A Subflow's child retried as a new execution is killed with its parent so.
     */
    static Decision kill(Execution retried, Flow flow, KillExecution kill, Instant now) {
        var effects = new ArrayList<Effect>();
        timerOf(retried, flow).ifPresent(timer -> effects.add(new Effect.CancelTimer(timer)));
        effects.add(new Effect.SendCommand(new KillExecution(nextId(retried), now, kill.cascade())));
        return new Decision(List.of(), effects, Optional.empty());
    }

    private static String nextId(Execution retried) {
        return TaskRunIds.of(retried.id(), "\u0001retry", null, null, null);
    }
}
