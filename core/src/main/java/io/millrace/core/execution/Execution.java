package io.millrace.core.execution;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The executor's state of one execution. Immutable: appliers return a new value for each event.
 * Task outputs are kept apart (see {@link TaskRun}); flow-level {@code outputs} are set once, at the end.
 */
public record Execution(
        String id,
        String namespace,
        String flowId,
        int flowRevision,
        Map<String, Object> inputs,
        Map<String, String> labels,
        State state,
        List<StateHistory> histories,
        List<TaskRun> taskRuns,
        Map<String, Object> outputs,
        String error) {

    public Execution {
        inputs = Maps.immutable(inputs);
        labels = Map.copyOf(labels);
        histories = List.copyOf(histories);
        taskRuns = List.copyOf(taskRuns);
        outputs = outputs == null ? null : Maps.immutable(outputs);
    }

    /** A new execution, as it stands before it runs. */
    public static Execution created(String id, String namespace, String flowId, int flowRevision, Map<String, Object> inputs,
            Map<String, String> labels, Instant at) {
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, State.CREATED,
                List.of(new StateHistory(State.CREATED, at)), List.of(), null, null);
    }

    public Instant startDate() {
        return histories.getFirst().date();
    }

    public Optional<TaskRun> taskRun(String taskRunId) {
        return taskRuns.stream().filter(t -> t.id().equals(taskRunId)).findFirst();
    }

    public Execution transition(State next, Instant at) {
        if (state == next) {
            return this;
        }
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, next,
                Lists.append(histories, new StateHistory(next, at)), taskRuns, outputs, error);
    }

    public Execution withTaskRuns(List<TaskRun> runs) {
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, state, histories, runs, outputs, error);
    }

    public Execution addTaskRun(TaskRun run) {
        return withTaskRuns(Lists.append(taskRuns, run));
    }

    public Execution updateTaskRun(String taskRunId, UnaryOperator<TaskRun> change) {
        return withTaskRuns(Lists.replace(taskRuns, t -> t.id().equals(taskRunId), change));
    }

    public Execution withResult(Map<String, Object> flowOutputs, String failure) {
        return new Execution(id, namespace, flowId, flowRevision, inputs, labels, state, histories, taskRuns,
                flowOutputs, failure);
    }
}
