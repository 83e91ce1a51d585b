package io.millrace.core.decide;

import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.TimerFired;
import io.millrace.core.command.Timer;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Inputs;
import io.millrace.core.flow.OutputDef;
import io.millrace.core.flow.TaskDef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The executor's decision core: given an execution's state, its flow and a command, it appends
 * events (applied at once, so later steps of the same decision see them) and effects. Pure: no I/O,
 * no clock (time comes in as {@code now}), no Kafka; the same inputs give the same decision.
 */
public final class Decider {
    private final DeciderSettings settings;
    private final Expressions expressions;
    private final Appliers appliers = new Appliers();

    public Decider(DeciderSettings settings, Expressions expressions) {
        this.settings = settings;
        this.expressions = expressions;
    }

    /**
     * @param state the execution's state; events are applied to it as they are decided
     * @param flow the execution's flow at its revision, or null when it cannot be found
     */
    public Decision decide(MutableExecutionState state, Flow flow, Command command, Instant now) {
        var step = new Step(state, appliers, command.executionId());
        Optional<Execution> execution = state.execution();
        if (command instanceof CreateExecution create) {
            if (execution.isPresent()) {
                return Decision.rejected(Rejection.Kind.DUPLICATE, "Expected a new execution id, but "
                        + create.executionId() + " exists already");
            }
            if (flow == null) {
                return Decision.rejected(Rejection.Kind.INVALID, "Expected flow " + create.namespace() + "/"
                        + create.flowId() + (create.revision() == null ? "" : " revision " + create.revision())
                        + " to exist, but it was not found");
            }
            create(step, flow, create, now);
            return step.decision();
        }
        if (execution.isEmpty()) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected execution " + command.executionId()
                    + " to exist, but it does not");
        }
        if (command instanceof TaskResult result && execution.get().taskRun(result.taskRunId())
                .filter(run -> alreadyApplied(run, result)).isPresent()) {
            return Decision.rejected(Rejection.Kind.DUPLICATE, "Result " + result.state() + " of " + result.taskRunId()
                    + " attempt " + result.attempt() + " was applied already");
        }
        if (command instanceof TimerFired fired && fired.timer().kind() == Timer.Kind.PURGE) {
            return purge(step, execution.get(), now);
        }
        if (execution.get().state().isTerminal()) {
            return Decision.rejected(Rejection.Kind.STALE, "Execution " + command.executionId()
                    + " is already " + execution.get().state());
        }
        switch (command) {
            case KillExecution kill -> kill(step, now);
            case TaskResult result -> result(step, flow, result, now);
            case TimerFired fired -> timer(step, flow, fired.timer(), now);
            case CreateExecution create -> throw new IllegalStateException("handled above");
        }
        return step.decision();
    }

    /**
     * Ends an execution FAILED from outside the normal course, e.g. after an internal error while
     * handling one of its commands. Its running task runs end FAILED too.
     */
    public Decision fail(MutableExecutionState state, String reason, Instant now) {
        Execution execution = state.execution().orElse(null);
        if (execution == null || execution.state().isTerminal()) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected a running execution to fail, but "
                    + (execution == null ? "there is none" : execution.id() + " is already " + execution.state()));
        }
        var step = new Step(state, appliers, execution.id());
        endOpenRuns(step, State.FAILED, reason, now);
        end(step, new ExecutionCompleted(State.FAILED, null, reason, now));
        return step.decision();
    }

    /**
     * What the stored state already implies must have been sent and stored: the snapshot, the current attempt of
     * every running task run with its lease timer, and an ended execution's purge timer. After a crash under
     * at-least-once the state may have reached its changelog while these records and timers did not; the replayed
     * command is then a duplicate, and this is what is sent and stored again. A timer is scheduled at the deadline the
     * state holds, so it takes the key of the one it replaces. No events: the state does not change.
     */
    public Decision reemit(ExecutionView state, Flow flow) {
        Execution execution = state.execution().orElse(null);
        if (execution == null) {
            return new Decision(List.of(), List.of(), Optional.empty());
        }
        var effects = new ArrayList<Effect>();
        if (execution.state().isTerminal()) {
            Instant ended = execution.histories().getLast().date();
            effects.add(new Effect.ScheduleTimer(Timer.purge(execution.id(), ended.plus(settings.retention()))));
        } else if (flow != null) {
            for (TaskRun run : execution.taskRuns()) {
                Optional<Attempt> current = run.currentAttempt().filter(a -> a.state() == State.RUNNING);
                Optional<TaskDef> task = flow.task(run.taskId());
                if (!run.state().isTerminal() && current.isPresent() && task.isPresent()) {
                    Attempt attempt = current.get();
                    effects.add(new Effect.DispatchTask(execution.id(), run.id(), attempt.number(), task.get()));
                    effects.add(new Effect.ScheduleTimer(
                            leaseTimer(execution.id(), run.id(), attempt.number(), attempt.leaseUntil())));
                }
            }
        }
        effects.add(new Effect.EmitSnapshot(execution.id()));
        return new Decision(List.of(), effects, Optional.empty());
    }

    /** Ends the execution, and keeps it for the retention: then a timer purges it. */
    private void end(Step step, ExecutionCompleted completed) {
        step.emit(completed);
        step.effect(new Effect.ScheduleTimer(Timer.purge(step.executionId(), completed.at().plus(settings.retention()))));
    }

    private Decision purge(Step step, Execution execution, Instant now) {
        if (!execution.state().isTerminal()) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected a finished execution to purge, but "
                    + execution.id() + " is " + execution.state());
        }
        step.emit(new ExecutionPurged(now));
        return step.decision();
    }

    /** The result's attempt ended already, in the state the result reports: this result was applied before. */
    private static boolean alreadyApplied(TaskRun run, TaskResult result) {
        return run.attempts().stream()
                .anyMatch(a -> a.number() == result.attempt() && a.state() == result.state() && result.state().isTerminal());
    }

    private void create(Step step, Flow flow, CreateExecution create, Instant now) {
        Map<String, Object> inputs;
        try {
            inputs = Inputs.resolve(flow.inputs(), create.inputs());
        } catch (Inputs.InvalidInputsException e) {
            step.emit(new ExecutionCreated(create.executionId(), flow.namespace(), flow.id(), flow.revision(),
                    create.inputs(), flow.labelsWith(create.labels()), now));
            end(step, new ExecutionCompleted(State.FAILED, null, e.getMessage(), now));
            return;
        }
        step.emit(new ExecutionCreated(create.executionId(), flow.namespace(), flow.id(), flow.revision(),
                inputs, flow.labelsWith(create.labels()), now));
        step.emit(new ExecutionStateChanged(State.RUNNING, now));
        advance(step, flow, now);
    }

    private void kill(Step step, Instant now) {
        step.emit(new ExecutionStateChanged(State.KILLING, now));
        endOpenRuns(step, State.KILLED, "killed", now);
        end(step, new ExecutionCompleted(State.KILLED, null, "Killed on request", now));
    }

    private static void endOpenRuns(Step step, State state, String error, Instant now) {
        step.execution().taskRuns().stream()
                .filter(run -> !run.state().isTerminal())
                .forEach(run -> step.emit(new TaskRunCompleted(run.id(), state, Map.of(), error, now)));
    }

    private void result(Step step, Flow flow, TaskResult result, Instant now) {
        Optional<TaskRun> run = step.execution().taskRun(result.taskRunId());
        Optional<Attempt> attempt = run.flatMap(TaskRun::currentAttempt);
        if (run.isEmpty() || run.get().state().isTerminal() || attempt.isEmpty()
                || attempt.get().number() != result.attempt()) {
            step.reject(Rejection.Kind.STALE, "Expected a result for the current attempt of a running task run, but "
                    + result.taskRunId() + " attempt " + result.attempt() + " is not one");
            return;
        }
        // the attempt's lease timer would fire only to be ignored: cancel it before a new one may take its key
        Timer lease = leaseTimer(step.executionId(), result.taskRunId(), result.attempt(), attempt.get().leaseUntil());
        switch (result.state()) {
            case RUNNING -> {
                Instant until = now.plus(settings.lease());
                step.emit(new TaskRunLeaseExtended(result.taskRunId(), result.attempt(), until, now));
                step.effect(new Effect.CancelTimer(lease));
                step.effect(new Effect.ScheduleTimer(leaseTimer(step.executionId(), result.taskRunId(), result.attempt(), until)));
            }
            case SUCCESS, WARNING, FAILED -> {
                step.effect(new Effect.CancelTimer(lease));
                step.emit(new TaskRunCompleted(result.taskRunId(), result.state(), result.outputs(), result.error(), now));
                advance(step, flow, now);
            }
            default -> step.reject(Rejection.Kind.INVALID, "Expected a worker result of RUNNING, SUCCESS, WARNING or "
                    + "FAILED, but got " + result.state());
        }
    }

    private void timer(Step step, Flow flow, Timer timer, Instant now) {
        Optional<TaskRun> run = step.execution().taskRun(timer.taskRunId());
        Optional<Attempt> attempt = run.flatMap(TaskRun::currentAttempt)
                .filter(a -> a.number() == timer.attempt() && a.state() == State.RUNNING);
        if (run.isEmpty() || attempt.isEmpty() || attempt.get().leaseUntil().isAfter(now)) {
            return; // outlived: a result or a heartbeat came first
        }
        step.emit(new TaskRunAttemptEnded(timer.taskRunId(), timer.attempt(), State.FAILED,
                "Lease expired: no result or heartbeat from the worker", now));
        if (timer.attempt() < settings.maxLostAttempts()) {
            TaskDef task = flow == null ? null : flow.task(run.get().taskId()).orElse(null);
            if (task != null) {
                startAttempt(step, run.get().id(), task, timer.attempt() + 1, now);
                return;
            }
        }
        step.emit(new TaskRunCompleted(timer.taskRunId(), State.FAILED, Map.of(),
                "Lost " + timer.attempt() + " attempt(s) to workers that stopped answering", now));
        advance(step, flow, now);
    }

    /** Starts whatever can run next, or ends the execution when nothing is left. */
    private void advance(Step step, Flow flow, Instant now) {
        if (flow == null) {
            end(step, new ExecutionCompleted(State.FAILED, null, "Expected the flow " + step.execution().namespace()
                    + "/" + step.execution().flowId() + " revision " + step.execution().flowRevision()
                    + " to exist, but it was not found", now));
            return;
        }
        Execution execution = step.execution();
        Progress main = Progress.of(flow.tasks(), execution);
        if (startNextOrWait(step, main, now)) {
            return;
        }
        if (main.failed() && startNextOrWait(step, Progress.of(flow.errors(), execution), now)) {
            return;
        }
        Progress finallyTasks = Progress.of(flow.finallyTasks(), execution);
        if (startNextOrWait(step, finallyTasks, now)) {
            return;
        }
        complete(step, flow, main, finallyTasks, now);
    }

    /** Starts the branch's next task if it has one; true when the branch is not finished. */
    private boolean startNextOrWait(Step step, Progress branch, Instant now) {
        branch.next().ifPresent(task -> startTask(step, task, now));
        return branch.next().isPresent() || branch.waiting();
    }

    /** A failure in the main tasks or in {@code finally} fails the execution; {@code errors} cannot rescue it. */
    private void complete(Step step, Flow flow, Progress main, Progress finallyTasks, Instant now) {
        if (main.failed() || finallyTasks.failed()) {
            end(step, new ExecutionCompleted(State.FAILED, null, main.failed() ? main.error() : finallyTasks.error(), now));
            return;
        }
        try {
            Map<String, Object> outputs = renderOutputs(step, flow);
            State state = main.warning() || finallyTasks.warning() ? State.WARNING : State.SUCCESS;
            end(step, new ExecutionCompleted(state, outputs, null, now));
        } catch (ExpressionException e) {
            end(step, new ExecutionCompleted(State.FAILED, null, "Flow outputs failed: " + e.getMessage(), now));
        }
    }

    private Map<String, Object> renderOutputs(Step step, Flow flow) throws ExpressionException {
        if (flow.outputs().isEmpty()) {
            return null;
        }
        Map<String, Object> variables = Contexts.variables(step.execution(), step.state(), flow);
        var outputs = new LinkedHashMap<String, Object>();
        for (OutputDef output : flow.outputs()) {
            outputs.put(output.id(), expressions.renderDeep(output.value(), variables));
        }
        return outputs;
    }

    private void startTask(Step step, TaskDef task, Instant now) {
        String taskRunId = TaskRunIds.of(step.executionId(), task.id(), null, null);
        step.emit(new TaskRunCreated(taskRunId, task.id(), null, null, now));
        startAttempt(step, taskRunId, task, 1, now);
    }

    private void startAttempt(Step step, String taskRunId, TaskDef task, int attempt, Instant now) {
        Instant until = now.plus(settings.lease());
        step.emit(new TaskRunAttemptStarted(taskRunId, attempt, until, now));
        step.effect(new Effect.DispatchTask(step.executionId(), taskRunId, attempt, task));
        step.effect(new Effect.ScheduleTimer(leaseTimer(step.executionId(), taskRunId, attempt, until)));
    }

    private static Timer leaseTimer(String executionId, String taskRunId, int attempt, Instant until) {
        return new Timer(executionId, Timer.Kind.LEASE, taskRunId, attempt, until);
    }
}
