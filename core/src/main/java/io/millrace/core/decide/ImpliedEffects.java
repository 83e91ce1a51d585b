package io.millrace.core.decide;

import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.Subflow;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.WorkerTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a stored state implies must have been sent and stored: the snapshot, the current attempt of every running
 * worker task with its lease timer, the retry timer of every RETRYING run, the timeout of every running flowable with
 * one, the delay or timeout of every PAUSED run with one, the start of every running subflow's child, the request
 * for a place of an execution waiting for one under its flow's concurrency limit, and an ended execution's purge
 * timer, its notice to the Subflow run that waits for it, the release of its place and, for a RETRIED one, the start
 * of the execution that retries it. After a crash under
 * at-least-once the state may have reached its changelog while these records and timers did not; the replayed command is then a duplicate, and this is what is sent
 * and stored again. Each timer comes from {@link Timers}, as the live decision's did, so it takes the key of the one it
 * replaces. No events: the state does not change.
 */
final class ImpliedEffects {
    private final DeciderSettings settings;
    private final Subflows subflows;

    ImpliedEffects(DeciderSettings settings, Subflows subflows) {
        this.settings = settings;
        this.subflows = subflows;
    }

    /**
     * @param stepAt when the step to send again was decided: only what it and the steps after it started (a replayed
     * command was not committed, so neither was any later step of its stream task); null: everything
     */
    Decision of(ExecutionView state, Flow flow, Instant stepAt) {
        Execution execution = state.execution().orElse(null);
        if (execution == null) {
            return new Decision(List.of(), List.of(), Optional.empty());
        }
        var effects = new ArrayList<Effect>();
        if (execution.state().isTerminal()) {
            Instant endedAt = execution.histories().getLast().date();
            effects.add(new Effect.ScheduleTimer(Timers.purge(execution, endedAt, settings)));
            subflows.ended(execution, state, flow, endedAt).ifPresent(n -> effects.add(new Effect.SendCommand(n)));
            if (Places.limited(flow)) {
                effects.add(Places.release(flow.key(), execution.id(), endedAt));
            }
            if (execution.state() == State.RETRIED) {
                RetryingExecutions.timerOf(execution, flow)
                        .ifPresent(timer -> effects.add(new Effect.ScheduleTimer(timer)));
            }
        } else if (Places.limited(flow) && Places.waits(execution.state())) {
            effects.add(Places.ask(flow, execution.id(), execution.histories().getLast().date()));
        } else if (flow != null) {
            for (TaskRun run : execution.taskRuns()) {
                TaskDef task = flow.task(run.taskId()).orElse(null);
                Attempt attempt = run.currentAttempt().orElse(null);
                if (task != null && attempt != null && !run.state().isTerminal()
                        && (stepAt == null || !attempt.histories().getLast().date().isBefore(stepAt))) {
                    ofRun(execution, state, flow, run, attempt, task, effects);
                }
            }
        }
        effects.add(new Effect.EmitSnapshot(execution.id()));
        return new Decision(List.of(), effects, Optional.empty());
    }

    private void ofRun(Execution execution, ExecutionView state, Flow flow, TaskRun run, Attempt attempt, TaskDef task,
            List<Effect> effects) {
        String executionId = execution.id();
        if (attempt.state() == State.RUNNING && run.state() == State.RUNNING && task instanceof Subflow subflow) {
            try {
                effects.add(new Effect.SendCommand(subflows.start(execution, state, flow, run, subflow,
                        attempt.histories().getFirst().date())));
            } catch (Scope.Failure e) {
                // it started once (it would have failed the run otherwise): a duplicate start changes nothing anyway
            }
        }
        if (run.state() == State.RETRYING) {
            effects.add(new Effect.ScheduleTimer(Timers.retry(executionId, run, task.options().retry())));
        } else if (run.state() == State.PAUSED) {
            if (task instanceof Pause pause && pause.wakeAfter() != null) {
                effects.add(new Effect.ScheduleTimer(Timers.resume(executionId, run, pause)));
            }
        } else if (attempt.state() == State.RUNNING && task instanceof WorkerTask workerTask) {
            effects.add(new Effect.DispatchTask(executionId, run.id(), attempt.number(), workerTask));
            effects.add(new Effect.ScheduleTimer(Timers.lease(executionId, run.id(), attempt.number(),
                    attempt.leaseUntil())));
        } else if (attempt.state() == State.RUNNING && task.options().timeout() != null) {
            effects.add(new Effect.ScheduleTimer(Timers.timeout(executionId, run, task)));
        }
    }

    /**
     * No later than the step a timer took, if it took one: it fired once due, and the attempt it guards ended no
     * earlier than that step if the step ended it. The earlier of the two, since a lease that ran out during the grace
     * of a fresh start is stored again due later ({@code DueTimers}), after the step it took before the crash.
     */
    private static Instant timerStep(Execution execution, Timer timer) {
        Instant attemptAt = execution.taskRun(timer.taskRunId()).flatMap(run -> run.attempts().stream()
                .filter(a -> a.number() == timer.attempt()).findFirst()).map(a -> a.histories().getLast().date())
                .orElse(null);
        return attemptAt != null && attemptAt.isBefore(timer.dueAt()) ? attemptAt : timer.dueAt();
    }

    /** When the step that handled a command was decided, if the state shows it. */
    static Instant stepOf(Execution execution, Command command) {
        return switch (command) {
            case TaskResult result -> execution.taskRun(result.taskRunId()).flatMap(run -> run.attempts().stream()
                    .filter(a -> a.number() == result.attempt()).findFirst())
                    .map(a -> a.histories().getLast().date()).orElse(null);
            case CreateExecution create -> execution.startDate();
            case TimerFired fired -> timerStep(execution, fired.timer());
            default -> null;
        };
    }
}
