package io.millrace.core.execution;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The executor's state of one execution. Its own fields are immutable: appliers return a new value when they change.
 * Its task runs are one {@link TaskRuns} container that appliers change in place (so an event never copies every
 * run) and that every value derived from this one shares: an Execution is the current state, not a value to keep
 * across events. Task outputs are kept apart (see {@link TaskRun}); flow-level {@code outputs} are set once, at the end.
 * {@code trigger} says which of the flow's triggers started it, null when none did. {@code requestedAt}: when its start
 * was asked for (the create's time, on the clock of whoever sent it), null when not known.
 */
public record Execution(
        String id,
        String namespace,
        String flowId,
        int flowRevision,
        Map<String, Object> inputs,
        Map<String, String> labels,
        ExecutionTrigger trigger,
        State state,
        List<StateHistory> histories,
        TaskRuns runs,
        Map<String, Object> outputs,
        String error,
        Lineage lineage,
        Instant requestedAt) {

    public Execution {
        lineage = lineage == null ? Lineage.FIRST : lineage;
        inputs = Maps.immutable(inputs);
        labels = Map.copyOf(labels);
        histories = List.copyOf(histories);
        outputs = outputs == null ? null : Maps.immutable(outputs);
    }

    public Execution(String id, String namespace, String flowId, int flowRevision, Map<String, Object> inputs,
            Map<String, String> labels, ExecutionTrigger trigger, State state, List<StateHistory> histories,
            List<TaskRun> taskRuns, Map<String, Object> outputs, String error) {
        this(id, namespace, flowId, flowRevision, inputs, labels, trigger, state, histories, TaskRuns.of(taskRuns), outputs,
                error, Lineage.FIRST, null);
    }

    /** A new execution no other one made, as it stands before it runs. */
    public static Execution created(String id, String namespace, String flowId, int flowRevision, Map<String, Object> inputs,
            Map<String, String> labels, ExecutionTrigger trigger, Instant at) {
        return created(id, namespace, flowId, flowRevision, inputs, labels, trigger, Lineage.FIRST, null, at);
    }

    /** A new execution, as it stands before it runs, its start asked for at {@code requestedAt} (null: not known). */
    public static Execution created(String id, String namespace, String flowId, int flowRevision, Map<String, Object> inputs,
            Map<String, String> labels, ExecutionTrigger trigger, Lineage lineage, Instant requestedAt, Instant at) {
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, trigger, State.CREATED,
                List.of(new StateHistory(State.CREATED, at)), new TaskRuns(), null, null, lineage, requestedAt);
    }

    /** This state as a value that later events do not change (its task runs copied): for checks and tools. */
    public Execution copy() {
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, trigger, state, histories, runs.copy(), outputs,
                error, lineage, requestedAt);
    }

    public Instant startDate() {
        return histories.getFirst().date();
    }

    /** Every task run, oldest first (a read-only view). */
    public List<TaskRun> taskRuns() {
        return runs.list();
    }

    public Optional<TaskRun> taskRun(String taskRunId) {
        return Optional.ofNullable(runs.get(taskRunId));
    }

    public Execution transition(State next, Instant at) {
        if (state == next) {
            return this;
        }
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, trigger, next,
                Lists.append(histories, new StateHistory(next, at)), runs, outputs, error, lineage, requestedAt);
    }

    /** How many times the execution was restarted. */
    public int restarts() {
        return (int) histories.stream().filter(h -> h.state() == State.RESTARTED).count();
    }

    /** When it was last restarted, or null if never. */
    public Instant lastRestart() {
        Instant last = null;
        for (StateHistory history : histories) {
            if (history.state() == State.RESTARTED) {
                last = history.date();
            }
        }
        return last;
    }

    public Execution withResult(Map<String, Object> flowOutputs, String failure) {
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, trigger, state, histories, runs,
                flowOutputs, failure, lineage, requestedAt);
    }
}
