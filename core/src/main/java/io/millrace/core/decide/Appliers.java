package io.millrace.core.decide;

import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.event.ExecutionRestarted;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.event.TaskRunPaused;
import io.millrace.core.event.TaskRunReset;
import io.millrace.core.event.TaskRunResumed;
import io.millrace.core.event.TaskRunRetrying;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The registry of appliers, one per event type. Live processing and replay both fold events through
 * here, so the state they build is the same. Task run events change the execution's runs in place.
 */
public final class Appliers {
    private final Map<Class<? extends Event>, EventApplier<? extends Event>> byType = new HashMap<>();

    public Appliers() {
        register(ExecutionCreated.class, (e, s) -> s.putExecution(Execution.created(e.executionId(), e.namespace(),
                e.flowId(), e.flowRevision(), e.inputs(), e.labels(), e.trigger(), e.lineage(), e.requestedAt(),
                e.at())));
        register(ExecutionStateChanged.class, (e, s) -> update(s, x -> x.transition(e.state(), e.at())));
        register(ExecutionCompleted.class, (e, s) ->
                update(s, x -> x.transition(e.state(), e.at()).withResult(e.outputs(), e.error())));
        register(ExecutionPurged.class, (e, s) -> s.removeExecution());
        register(ExecutionRestarted.class, (e, s) ->
                update(s, x -> x.transition(State.RESTARTED, e.at()).withResult(null, null)));
        register(TaskRunCreated.class, (e, s) -> update(s, x -> {
            x.runs().add(TaskRun.created(e.taskRunId(), e.taskId(), e.parentTaskRunId(), e.value(), e.iteration(), e.at()));
            return x;
        }));
        register(TaskRunAttemptStarted.class, (e, s) -> updateRun(s, e.taskRunId(), run -> run
                .transition(State.RUNNING, e.at())
                .withError(null)
                .addAttempt(new Attempt(e.attempt(), State.RUNNING,
                        List.of(new StateHistory(State.RUNNING, e.at())), e.leaseUntil(), null, false))));
        register(TaskRunLeaseExtended.class, (e, s) -> updateRun(s, e.taskRunId(),
                run -> run.updateAttempt(e.attempt(), a -> a.withLeaseUntil(e.leaseUntil()))));
        register(TaskRunAttemptEnded.class, (e, s) -> updateRun(s, e.taskRunId(),
                run -> run.updateAttempt(e.attempt(), a -> a.ended(e.state(), e.at(), e.reason(), true))));
        register(TaskRunRetrying.class, (e, s) -> updateRun(s, e.taskRunId(), run -> run
                .updateAttempt(e.attempt(), a -> a.ended(State.FAILED, e.at(), e.error(), false, e.worker()))
                .transition(State.RETRYING, e.at())
                .withError(e.error())));
        register(TaskRunReset.class, (e, s) -> {
            updateRun(s, e.taskRunId(), run -> run.transition(State.CREATED, e.at()).withError(null));
            s.putOutputs(e.taskRunId(), Map.of()); // what the earlier attempt output is no longer this run's
        });
        register(TaskRunPaused.class, (e, s) -> updateRun(s, e.taskRunId(), run -> run.transition(State.PAUSED, e.at())));
        register(TaskRunResumed.class, (e, s) -> {
            updateRun(s, e.taskRunId(), run -> run.transition(State.RUNNING, e.at()));
            if (!e.outputs().isEmpty()) {
                s.putOutputs(e.taskRunId(), e.outputs());
            }
        });
        register(TaskRunCompleted.class, (e, s) -> {
            updateRun(s, e.taskRunId(), run -> endRunningAttempt(run, e.state(), e).transition(e.state(), e.at())
                    .withError(e.error()));
            if (!e.outputs().isEmpty()) {
                s.putOutputs(e.taskRunId(), e.outputs());
            }
        });
    }

    private <E extends Event> void register(Class<E> type, EventApplier<E> applier) {
        byType.put(type, applier);
    }

    @SuppressWarnings("unchecked")
    public void apply(Event event, MutableExecutionState state) {
        var applier = (EventApplier<Event>) byType.get(event.getClass());
        if (applier == null) {
            throw new IllegalStateException("Expected an applier for " + event.getClass().getSimpleName() + ", but none is registered");
        }
        applier.apply(event, state);
    }

    private static TaskRun endRunningAttempt(TaskRun run, State state, TaskRunCompleted e) {
        return run.currentAttempt()
                .filter(a -> !a.state().isTerminal())
                .map(a -> run.updateAttempt(a.number(), x -> x.ended(state, e.at(), e.error(), false, e.worker())))
                .orElse(run);
    }

    private static void update(MutableExecutionState state, UnaryOperator<Execution> change) {
        Execution current = state.execution().orElseThrow(
                () -> new IllegalStateException("Expected an execution to apply the event to, but there is none"));
        state.putExecution(change.apply(current));
    }

    private static void updateRun(MutableExecutionState state, String taskRunId, UnaryOperator<TaskRun> change) {
        update(state, x -> {
            x.runs().update(taskRunId, change);
            return x;
        });
    }
}
