package io.millrace.core.decide;

import io.millrace.core.cache.LruCache;
import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.Inputs;
import io.millrace.core.flow.RetryPolicy;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.WorkerTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The executor's decision core: given an execution's state, its flow and a command, it appends events (applied at
 * once, so later steps of the same decision see them) and effects. Pure: no I/O, no clock (time comes in as
 * {@code now}), no Kafka; the same inputs give the same decision. Commands are handled by handlers registered by
 * command type, timers by timer kind; flowables behave by {@link Behaviours}.
 */
public final class Decider {
    /** Plans kept: one per running flowable attempt, so enough for the flowables running at once. */
    static final int MAX_CACHED_PLANS = 10_000;
    private final DeciderSettings settings;
    private final Expressions expressions;
    private final Appliers appliers = new Appliers();
    private final Behaviours behaviours = new Behaviours();
    /** Flowable attempts' plans: made once per attempt, whatever the number of decisions it takes. */
    private final LruCache<String, Advance.Lanes> plans = new LruCache<>(MAX_CACHED_PLANS);
    private final Map<Class<? extends Command>, Handler<? extends Command>> handlers = new HashMap<>();
    private final Map<Timer.Kind, Handler<Timer>> timerHandlers = new EnumMap<>(Timer.Kind.class);

    /** Handles one kind of command for an execution that exists and runs. */
    @FunctionalInterface
    private interface Handler<C> {
        void handle(C command, Advance advance);
    }

    public Decider(DeciderSettings settings, Expressions expressions) {
        this.settings = settings;
        this.expressions = expressions;
        handlers.put(KillExecution.class, (Handler<KillExecution>) (kill, advance) -> kill(advance));
        handlers.put(TaskResult.class, (Handler<TaskResult>) this::result);
        handlers.put(TimerFired.class, (Handler<TimerFired>) (fired, advance) ->
                timerHandlers.get(fired.timer().kind()).handle(fired.timer(), advance));
        timerHandlers.put(Timer.Kind.LEASE, this::leaseExpired);
        timerHandlers.put(Timer.Kind.RETRY, this::retryDue);
        timerHandlers.put(Timer.Kind.TIMEOUT, this::timedOut);
    }

    /**
     * Forgets the plans kept across decisions, for a state that may have gone back (a stream task revived after an
     * aborted transaction restores its stores to the last commit).
     */
    public void forgetPlans() {
        plans.clear();
    }

    /**
     * @param state the execution's state; events are applied to it as they are decided
     * @param flow the execution's flow at its revision, or null when it cannot be found
     */
    @SuppressWarnings("unchecked")
    public Decision decide(MutableExecutionState state, Flow flow, Command command, Instant now) {
        var step = new Step(state, appliers, command.executionId());
        Optional<Execution> execution = state.execution();
        if (command instanceof CreateExecution create) {
            return create(step, flow, create, now);
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
        if (flow == null) {
            var advance = new Advance(step, emptyFlow(execution.get()), now, settings, expressions, behaviours, plans);
            advance.endOpenRuns(State.FAILED, "flow missing");
            advance.endExecution(new ExecutionCompleted(State.FAILED, null, "Expected the flow "
                    + execution.get().namespace() + "/" + execution.get().flowId() + " revision "
                    + execution.get().flowRevision() + " to exist, but it was not found", now));
            return step.decision();
        }
        var advance = new Advance(step, flow, now, settings, expressions, behaviours, plans);
        ((Handler<Command>) handlers.get(command.getClass())).handle(command, advance);
        advance.run();
        return step.decision();
    }

    /**
     * Ends an execution FAILED from outside the normal course, e.g. after an internal error while
     * handling one of its commands. Its open task runs end FAILED too.
     */
    public Decision fail(MutableExecutionState state, String reason, Instant now) {
        Execution execution = state.execution().orElse(null);
        if (execution == null || execution.state().isTerminal()) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected a running execution to fail, but "
                    + (execution == null ? "there is none" : execution.id() + " is already " + execution.state()));
        }
        var step = new Step(state, appliers, execution.id());
        var advance = new Advance(step, emptyFlow(execution), now, settings, expressions, behaviours, plans);
        advance.endOpenRuns(State.FAILED, reason);
        advance.endExecution(new ExecutionCompleted(State.FAILED, null, reason, now));
        return step.decision();
    }

    /**
     * What the stored state already implies must have been sent and stored: the snapshot, the current attempt of
     * every running worker task with its lease timer, the retry timer of every RETRYING run, the timeout of every
     * running flowable with one, and an ended execution's purge timer. After a crash under at-least-once the state may
     * have reached its changelog while these records and timers did not; the replayed command is then a duplicate,
     * and this is what is sent and stored again. Each timer is scheduled at the deadline the state implies, so it
     * takes the key of the one it replaces. No events: the state does not change.
     */
    public Decision reemit(ExecutionView state, Flow flow) {
        return reemit(state, flow, null);
    }

    /**
     * As {@link #reemit(ExecutionView, Flow)}, for the step of one duplicate command: only the attempts and timers
     * that step started ({@code stepAt}, when it was decided; null: every one) are sent again, so a replayed result
     * does not send every running dispatch of its execution again.
     */
    public Decision reemit(ExecutionView state, Flow flow, Instant stepAt) {
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
                TaskDef task = flow.task(run.taskId()).orElse(null);
                Attempt attempt = run.currentAttempt().orElse(null);
                if (task == null || attempt == null || run.state().isTerminal()
                        || stepAt != null && !stepAt.equals(attempt.histories().getLast().date())) {
                    continue;
                }
                if (run.state() == State.RETRYING) {
                    effects.add(new Effect.ScheduleTimer(retryTimer(execution.id(), run, task.options().retry())));
                } else if (attempt.state() == State.RUNNING && task instanceof WorkerTask workerTask) {
                    effects.add(new Effect.DispatchTask(execution.id(), run.id(), attempt.number(), workerTask));
                    effects.add(new Effect.ScheduleTimer(
                            Advance.leaseTimer(execution.id(), run.id(), attempt.number(), attempt.leaseUntil())));
                } else if (attempt.state() == State.RUNNING && task.options().timeout() != null) {
                    effects.add(new Effect.ScheduleTimer(new Timer(execution.id(), Timer.Kind.TIMEOUT, run.id(),
                            attempt.number(), attempt.histories().getFirst().date().plus(task.options().timeout()))));
                }
            }
        }
        effects.add(new Effect.EmitSnapshot(execution.id()));
        return new Decision(List.of(), effects, Optional.empty());
    }

    /** When the step that handled a command was decided, if the state shows it: for {@link #reemit}. */
    public static Instant stepOf(Execution execution, Command command) {
        return switch (command) {
            case TaskResult result -> execution.taskRun(result.taskRunId()).flatMap(run -> run.attempts().stream()
                    .filter(a -> a.number() == result.attempt()).findFirst())
                    .map(a -> a.histories().getLast().date()).orElse(null);
            case CreateExecution create -> execution.startDate();
            default -> null;
        };
    }

    /** The retry timer a RETRYING run waits for, at the date its policy gave when its attempt failed. */
    private static Timer retryTimer(String executionId, TaskRun run, RetryPolicy retry) {
        Attempt failed = run.currentAttempt().orElseThrow();
        Instant failedAt = failed.histories().getLast().date();
        Instant at = retry == null ? failedAt
                : Optional.ofNullable(Advance.nextAttemptAt(retry, run, failedAt)).orElse(failedAt);
        return new Timer(executionId, Timer.Kind.RETRY, run.id(), failed.number(), at);
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

    private Decision create(Step step, Flow flow, CreateExecution create, Instant now) {
        if (step.state().execution().isPresent()) {
            return Decision.rejected(Rejection.Kind.DUPLICATE, "Expected a new execution id, but "
                    + create.executionId() + " exists already");
        }
        if (create.executionId().indexOf('/') >= 0) {
            return Decision.rejected(Rejection.Kind.INVALID, "Expected an execution id without '/', but got "
                    + create.executionId());
        }
        if (flow == null) {
            return Decision.rejected(Rejection.Kind.INVALID, "Expected flow " + create.namespace() + "/"
                    + create.flowId() + (create.revision() == null ? "" : " revision " + create.revision())
                    + " to exist, but it was not found");
        }
        if (flow.disabled()) {
            return Decision.rejected(Rejection.Kind.INVALID, "Expected flow " + flow.key() + " to be enabled, but it is "
                    + "disabled");
        }
        var advance = new Advance(step, flow, now, settings, expressions, behaviours, plans);
        Map<String, Object> inputs;
        try {
            inputs = Inputs.resolve(flow.inputs(), create.inputs());
        } catch (Inputs.InvalidInputsException e) {
            step.emit(new ExecutionCreated(create.executionId(), flow.namespace(), flow.id(), flow.revision(),
                    create.inputs(), flow.executionLabels(create.labels(), create.executionId()), create.trigger(), now));
            advance.endExecution(new ExecutionCompleted(State.FAILED, null, e.getMessage(), now));
            return step.decision();
        }
        step.emit(new ExecutionCreated(create.executionId(), flow.namespace(), flow.id(), flow.revision(),
                inputs, flow.executionLabels(create.labels(), create.executionId()), create.trigger(), now));
        step.emit(new ExecutionStateChanged(State.RUNNING, now));
        advance.touch(null);
        advance.run();
        return step.decision();
    }

    private void kill(Advance advance) {
        advance.step().emit(new ExecutionStateChanged(State.KILLING, advance.now()));
        advance.endOpenRuns(State.KILLED, "killed");
        advance.endExecution(new ExecutionCompleted(State.KILLED, null, "Killed on request", advance.now()));
    }

    private void result(TaskResult result, Advance advance) {
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
        Timer lease = Advance.leaseTimer(step.executionId(), result.taskRunId(), result.attempt(), attempt.get().leaseUntil());
        switch (result.state()) {
            case RUNNING -> {
                Instant until = advance.now().plus(settings.lease());
                step.emit(new TaskRunLeaseExtended(result.taskRunId(), result.attempt(), until, advance.now()));
                step.effect(new Effect.CancelTimer(lease));
                step.effect(new Effect.ScheduleTimer(Advance.leaseTimer(step.executionId(), result.taskRunId(),
                        result.attempt(), until)));
            }
            case SUCCESS, WARNING, FAILED -> {
                step.effect(new Effect.CancelTimer(lease));
                advance.end(run, advance.flow().task(run.taskId()).orElse(null), result.state(), result.outputs(),
                        result.error());
            }
            default -> step.reject(Rejection.Kind.INVALID, "Expected a worker result of RUNNING, SUCCESS, WARNING or "
                    + "FAILED, but got " + result.state());
        }
    }

    /** A lease ran out: the worker is taken for lost, and the attempt is dispatched again, a few times at most. */
    private void leaseExpired(Timer timer, Advance advance) {
        Step step = advance.step();
        TaskRun run = advance.runs().get(timer.taskRunId());
        Optional<Attempt> attempt = Optional.ofNullable(run).flatMap(TaskRun::currentAttempt)
                .filter(a -> a.number() == timer.attempt() && a.state() == State.RUNNING && a.leaseUntil() != null);
        if (run == null || attempt.isEmpty() || attempt.get().leaseUntil().isAfter(advance.now())) {
            return; // outlived: a result or a heartbeat came first
        }
        step.emit(new TaskRunAttemptEnded(timer.taskRunId(), timer.attempt(), State.FAILED,
                "Lease expired: no result or heartbeat from the worker", advance.now()));
        TaskRun lost = advance.runs().get(run.id());
        TaskDef task = advance.flow().task(run.taskId()).orElse(null);
        if (lost.lostAttempts() < settings.maxLostAttempts() && task != null) {
            advance.startAttempt(lost, task);
            return;
        }
        advance.complete(lost, State.FAILED, Map.of(),
                "Lost " + lost.lostAttempts() + " attempt(s) to workers that stopped answering");
    }

    /** A RETRYING run's wait is over: its next attempt starts (a flowable runs its children again). */
    private void retryDue(Timer timer, Advance advance) {
        TaskRun run = advance.runs().get(timer.taskRunId());
        TaskDef task = run == null ? null : advance.flow().task(run.taskId()).orElse(null);
        if (run == null || task == null || run.state() != State.RETRYING
                || run.currentAttempt().map(a -> a.number() != timer.attempt()).orElse(true)) {
            return; // outlived: the run was killed or moved on
        }
        if (task instanceof Flowable flowable) {
            advance.restart(run, flowable);
        } else {
            advance.startAttempt(run, task);
        }
    }

    /**
     * A flowable ran out of time: what runs inside it is killed, so it fails; its own errors and finally still run
     * (no new task of its main branch starts after a failure).
     */
    private void timedOut(Timer timer, Advance advance) {
        TaskRun run = advance.runs().get(timer.taskRunId());
        TaskDef task = run == null ? null : advance.flow().task(run.taskId()).orElse(null);
        if (run == null || task == null || run.state() != State.RUNNING
                || run.currentAttempt().map(a -> a.number() != timer.attempt()).orElse(true)) {
            return;
        }
        if (!advance.killInside(run, "Timeout of '" + run.taskId() + "' after " + task.options().timeout())) {
            advance.end(run, task, State.FAILED, Map.of(), "Timeout after " + task.options().timeout());
        }
    }

    /** A stand-in flow for an execution whose flow is gone: nothing to run, only runs to end. */
    private static Flow emptyFlow(Execution execution) {
        return new Flow(execution.namespace(), execution.flowId(), execution.flowRevision(), Map.of(), List.of(),
                List.of(), List.of(), List.of(), List.of(), Map.of(), List.of(), false, "");
    }
}
