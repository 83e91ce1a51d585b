package io.millrace.core.decide;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.RestartExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.event.Event;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A tiny fluent driver for decider tests: one execution of one flow over an in-memory state, a fake
 * clock, and the log of every event decided so far. Task runs are addressed by task id.
 */
final class ExecutionDriver {
    static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration RETENTION = Duration.ofDays(1);
    static final String EXECUTION_ID = "exec-1";

    private static final Expressions EXPRESSIONS = new Expressions();

    private final Flow flow;
    private final String executionId;
    private final Decider decider;
    private final InMemoryExecutionState state = new InMemoryExecutionState();
    private final List<Event> log = new ArrayList<>();
    private Instant now = T0;

    private ExecutionDriver(Flow flow, String executionId, DeciderSettings settings) {
        this.flow = flow;
        this.executionId = executionId;
        this.decider = new Decider(settings, EXPRESSIONS);
    }

    static ExecutionDriver flow(String yaml) {
        return flow(yaml, new DeciderSettings(LEASE, 3, RETENTION));
    }

    static ExecutionDriver flow(String yaml, DeciderSettings settings) {
        return flow(yaml, EXECUTION_ID, settings);
    }

    /** A driver of the execution {@code executionId}, not {@link #EXECUTION_ID}. */
    static ExecutionDriver flow(String yaml, String executionId, DeciderSettings settings) {
        try {
            return new ExecutionDriver(new FlowParser().parse(yaml), executionId, settings);
        } catch (FlowValidationException e) {
            throw new AssertionError("test flow does not parse: " + e.problems(), e);
        }
    }

    // --- commands -------------------------------------------------------------------------------

    Decision create() {
        return create(Map.of());
    }

    Decision create(Map<String, Object> inputs) {
        return decide(new CreateExecution(executionId, flow.namespace(), flow.id(), null, inputs, Map.of(), now));
    }

    /** Starts the execution as {@code trigger} would. */
    Decision create(ExecutionTrigger trigger) {
        return decide(new CreateExecution(executionId, flow.namespace(), flow.id(), null, Map.of(), Map.of(), now, trigger));
    }

    Decision createWithoutFlow() {
        return record(decider.decide(state, null,
                new CreateExecution(executionId, "io.millrace.tests", "missing", 3, Map.of(), Map.of(), now), now));
    }

    Decision succeed(String taskId) {
        return result(taskId, State.SUCCESS, Map.of());
    }

    Decision succeed(String taskId, Map<String, Object> outputs) {
        return result(taskId, State.SUCCESS, outputs);
    }

    Decision fail(String taskId) {
        return decide(new TaskResult(executionId, runId(taskId), currentAttempt(taskId), State.FAILED, Map.of(),
                "boom", "worker-1", now));
    }

    Decision heartbeat(String taskId) {
        return result(taskId, State.RUNNING, Map.of());
    }

    Decision result(String taskId, State resultState, Map<String, Object> outputs) {
        return resultFor(runId(taskId), currentAttempt(taskId), resultState, outputs);
    }

    Decision resultFor(String taskRunId, int attempt, State resultState, Map<String, Object> outputs) {
        return decide(new TaskResult(executionId, taskRunId, attempt, resultState, outputs, null, "worker-1", now));
    }

    /** Fires the lease timer of the given attempt, as the executor would once it is due. */
    Decision fireLease(String taskId, int attempt) {
        Instant due = run(taskId).attempts().stream().filter(a -> a.number() == attempt).findFirst()
                .map(Attempt::leaseUntil).orElse(now);
        return decide(new TimerFired(new Timer(executionId, Timer.Kind.LEASE, runId(taskId), attempt, due), now));
    }

    /** Fires a purge timer now, as the executor would once a finished execution's retention ends. */
    Decision firePurge() {
        return decide(new TimerFired(Timer.purge(executionId, now), now));
    }

    Decision kill() {
        return decide(new KillExecution(executionId, now));
    }

    Decision restart() {
        return decide(new RestartExecution(executionId, now));
    }

    Decision failFromOutside(String reason) {
        return record(decider.fail(state, reason, now));
    }

    Decision decide(io.millrace.core.command.Command command) {
        return record(decider.decide(state, flow, command, now));
    }

    /** What the decider would send again for the stored state (no command, no events). */
    Decision reemit() {
        return record(decider.reemit(state, flow));
    }

    private Decision record(Decision decision) {
        log.addAll(decision.events());
        return decision;
    }

    // --- clock ----------------------------------------------------------------------------------

    ExecutionDriver advance(Duration duration) {
        now = now.plus(duration);
        return this;
    }

    Instant now() {
        return now;
    }

    // --- state ----------------------------------------------------------------------------------

    Execution execution() {
        return state.execution().orElseThrow();
    }

    InMemoryExecutionState state() {
        return state;
    }

    List<Event> log() {
        return List.copyOf(log);
    }

    Flow flow() {
        return flow;
    }

    String runId(String taskId) {
        return TaskRunIds.of(executionId, taskId, null, null, null);
    }

    TaskRun run(String taskId) {
        return execution().taskRun(runId(taskId))
                .orElseThrow(() -> new AssertionError("no top-level task run for task '" + taskId + "'"));
    }

    /** Every run of a task, at any depth, oldest first. */
    List<TaskRun> runs(String taskId) {
        return execution().taskRuns().stream().filter(r -> r.taskId().equals(taskId)).toList();
    }

    /** The only run of a task, at any depth. */
    TaskRun runOf(String taskId) {
        List<TaskRun> runs = runs(taskId);
        if (runs.size() != 1) {
            throw new AssertionError("expected one run of '" + taskId + "', but found " + runs.size());
        }
        return runs.getFirst();
    }

    /** Ends the current attempt of a run, at any depth, as a worker would report it. */
    Decision end(TaskRun run, State resultState) {
        int attempt = run.currentAttempt().map(Attempt::number).orElseThrow();
        return decide(new TaskResult(executionId, run.id(), attempt, resultState, Map.of(),
                resultState == State.FAILED ? "boom" : null, "worker-1", now));
    }

    /** Fires the timer of a kind for the current attempt of a run, as the executor would once it is due. */
    Decision fire(Timer.Kind kind, TaskRun run) {
        TaskRun current = execution().taskRun(run.id()).orElseThrow();
        int attempt = current.currentAttempt().map(Attempt::number).orElseThrow();
        return decide(new TimerFired(new Timer(executionId, kind, run.id(), attempt, now), now));
    }

    int currentAttempt(String taskId) {
        return run(taskId).currentAttempt().map(Attempt::number).orElseThrow();
    }

    List<String> taskIdsRun() {
        return execution().taskRuns().stream().map(TaskRun::taskId).toList();
    }

    // --- decision inspection --------------------------------------------------------------------

    static List<Class<?>> eventTypes(Decision decision) {
        return decision.events().stream().<Class<?>>map(Object::getClass).toList();
    }

    static List<String> dispatchedTaskRunIds(Decision decision) {
        return decision.effects().stream()
                .filter(Effect.DispatchTask.class::isInstance)
                .map(e -> ((Effect.DispatchTask) e).taskRunId())
                .toList();
    }

    static List<String> dispatchedTaskIds(Decision decision) {
        return decision.effects().stream()
                .filter(Effect.DispatchTask.class::isInstance)
                .map(e -> ((Effect.DispatchTask) e).task().id())
                .toList();
    }

    static List<Timer> scheduledTimers(Decision decision) {
        return decision.effects().stream()
                .filter(Effect.ScheduleTimer.class::isInstance)
                .map(e -> ((Effect.ScheduleTimer) e).timer())
                .toList();
    }

    static <E extends Event> E only(Decision decision, Class<E> type) {
        List<E> found = decision.events().stream().filter(type::isInstance).map(type::cast).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected exactly one " + type.getSimpleName() + " in " + decision.events());
        }
        return found.getFirst();
    }
}
