package io.millrace.core.decide;

import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunReset;
import io.millrace.core.event.TaskRunRetrying;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Truth;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.RetryPolicy;
import io.millrace.core.flow.Subflow;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.TaskOptions;
import io.millrace.core.flow.WorkerTask;
import java.time.Instant;
import java.util.Map;

/**
 * A task run's life in one decision: created (or taken over after a reset), started unless its runIf says no, an
 * attempt dispatched (a worker task, with its lease) or walked (a flowable, with its timeout), ended by its retry and
 * failure options, reset and killed. Whatever starts or ends a run touches the flowable it runs in ({@link Advance}).
 */
final class RunLife {
    private final Advance advance;
    private final Step step;
    private final Instant now;
    private final DeciderSettings settings;

    RunLife(Advance advance, DeciderSettings settings) {
        this.advance = advance;
        this.step = advance.step();
        this.now = advance.now();
        this.settings = settings;
    }

    private TaskRuns runs() {
        return advance.runs();
    }

    /** Creates the child's run (or takes the one a retried parent reset), then starts it unless its runIf says no. */
    void start(Plan.Child child, String parentId) {
        TaskDef task = child.task();
        String id = TaskRunIds.of(step.executionId(), task.id(), parentId, child.value(), child.iteration());
        boolean overLimit = false;
        if (runs().get(id) == null) {
            overLimit = runs().size() >= settings.maxTaskRuns();
            step.emit(new TaskRunCreated(id, task.id(), parentId, child.value(), child.iteration(), now));
        }
        TaskRun run = runs().get(id);
        if (overLimit) {
            complete(run, State.FAILED, Map.of(), "Expected at most " + settings.maxTaskRuns()
                    + " task runs in one execution (max-task-runs), but this one would be run " + runs().size(), null);
            return;
        }
        if (task.options().runIf() != null) {
            try {
                String rendered = advance.render(task.options().runIf(), run, task);
                if (!Truth.isTruthy(rendered)) {
                    complete(run, State.SKIPPED, Map.of(), null, null);
                    return;
                }
            } catch (ExpressionException e) {
                complete(run, State.FAILED, Map.of(), "runIf: " + e.getMessage(), null);
                return;
            }
        }
        startAttempt(run, task);
    }

    /**
     * A new attempt: a worker task is dispatched with a lease; a subflow starts its child; a flowable starts picking
     * its children.
     */
    void startAttempt(TaskRun run, TaskDef task) {
        int attempt = run.attempts().size() + 1;
        if (task instanceof Subflow subflow) {
            step.emit(new TaskRunAttemptStarted(run.id(), attempt, null, now));
            advance.subflows().startAttempt(advance, runs().get(run.id()), subflow);
        } else if (task instanceof WorkerTask workerTask) {
            Instant until = now.plus(settings.lease());
            step.emit(new TaskRunAttemptStarted(run.id(), attempt, until, now));
            step.effect(new Effect.DispatchTask(step.executionId(), run.id(), attempt, workerTask));
            step.effect(new Effect.ScheduleTimer(Timers.lease(step.executionId(), run.id(), attempt, until)));
        } else {
            step.emit(new TaskRunAttemptStarted(run.id(), attempt, null, now));
            if (task.options().timeout() != null) {
                step.effect(new Effect.ScheduleTimer(Timers.timeout(step.executionId(), runs().get(run.id()), task)));
            }
            advance.touch(run.id());
        }
    }

    /**
     * Ends an attempt as it ended: a failure the task's retry policy allows to try again makes the run RETRYING until
     * a timer; otherwise the run ends, its state shaped by {@code warningOnRetry}, {@code allowFailure} and
     * {@code allowWarning}. {@code worker}: the times of the worker whose result ended it, for the attempt (or null).
     */
    void end(TaskRun run, TaskDef task, State state, Map<String, Object> outputs, String error, WorkerTimes worker) {
        TaskOptions options = task == null ? TaskOptions.DEFAULTS : task.options();
        RetryPolicy retry = options.retry();
        Attempt current = run.currentAttempt().orElse(null);
        if (state == State.FAILED && retry != null && current != null
                && retry.behavior() == RetryPolicy.Behavior.CREATE_NEW_EXECUTION) {
            if (RetryingExecutions.retry(advance, run, retry, error, worker)) {
                return;
            }
        } else if (state == State.FAILED && retry != null && current != null) {
            Instant at = Timers.nextAttemptAt(retry, run, now);
            if (at != null) {
                step.emit(new TaskRunRetrying(run.id(), current.number(), error, at, worker, now));
                step.effect(new Effect.ScheduleTimer(Timers.retry(step.executionId(), run.id(), current.number(), at)));
                return;
            }
        }
        State ended = state;
        if (ended == State.SUCCESS && retry != null && retry.warningOnRetry() && run.ownAttempts() > 1) {
            ended = State.WARNING;
        }
        if (ended == State.FAILED && options.allowFailure()) {
            ended = State.WARNING;
        }
        if (ended == State.WARNING && options.allowWarning()) {
            ended = State.SUCCESS;
        }
        complete(run, ended, outputs, error, worker);
    }

    /** The run ends for good; its parent looks again at what to do. */
    void complete(TaskRun run, State state, Map<String, Object> outputs, String error, WorkerTimes worker) {
        step.emit(new TaskRunCompleted(run.id(), state, outputs, error, worker, now));
        advance.touch(run.parentTaskRunId());
    }

    /** A retried flowable: every run inside it starts again, as it decides. */
    void restart(TaskRun run, Flowable flowable) {
        for (TaskRun descendant : runs().descendants(run.id())) {
            step.emit(new TaskRunReset(descendant.id(), now));
        }
        startAttempt(runs().get(run.id()), flowable);
    }

    /**
     * A retried flowable (or a restarted execution) resets runs inside it; those its new attempt did not reach (a
     * branch not taken this time, errors that were not needed) end SKIPPED with it (null: the execution), so that no
     * run stays CREATED.
     */
    void skipReset(String flowableRunId) {
        for (TaskRun descendant : runs().descendants(flowableRunId)) {
            if (descendant.state() == State.CREATED) {
                step.emit(new TaskRunCompleted(descendant.id(), State.SKIPPED, Map.of(), null, now));
            }
        }
    }

    /**
     * At the end of a restarted execution, the runs of the flow's own branches that the restart reset and the walk did
     * not reach end SKIPPED (only a restart leaves them CREATED: an execution never restarted is not looked over).
     */
    void skipRestartLeftovers() {
        if (step.execution().lastRestart() != null) {
            skipReset(null);
        }
    }

    /** Ends every open run of the execution, e.g. when it is killed; their lease timers would only be ignored. */
    void endOpenRuns(State state, String error) {
        for (TaskRun run : step.execution().taskRuns()) {
            if (!run.state().isTerminal()) {
                step.emit(new TaskRunCompleted(run.id(), state, Map.of(), error, now));
            }
        }
    }

    /**
     * Ends the runs inside a flowable that are still open, KILLED, and looks at the flowable again (its main branch
     * failed); true when there was one to kill.
     */
    boolean killInside(TaskRun run, String reason) {
        boolean killed = false;
        for (TaskRun descendant : runs().descendants(run.id())) {
            if (!descendant.state().isTerminal() && descendant.state() != State.CREATED) { // a reset run may still run
                descendant.currentAttempt().filter(a -> a.leaseUntil() != null && !a.state().isTerminal()).ifPresent(a ->
                        step.effect(new Effect.CancelTimer(Timers.lease(step.executionId(), descendant.id(), a.number(),
                                a.leaseUntil()))));
                step.emit(new TaskRunCompleted(descendant.id(), State.KILLED, Map.of(), reason, now));
                killed = true;
            }
        }
        if (killed) {
            advance.touch(run.id());
        }
        return killed;
    }
}
