package io.millrace.topology;

import io.millrace.core.decide.MutableExecutionState;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.OutputsRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One execution's state over the executor's stores for the length of one decision. Writes are
 * buffered and reach the stores only on {@link #flush()}, so a decision that throws half-way leaves
 * the stores as they were.
 */
final class StoreBackedState implements MutableExecutionState {
    private final String executionId;
    private final KeyValueStore<String, ExecutionRecord> executions;
    private final KeyValueStore<String, OutputsRecord> outputs;
    private final Map<String, Map<String, Object>> pendingOutputs = new HashMap<>();
    private Execution execution;
    private boolean loaded;
    private boolean dirty;
    /** Task runs whose outputs {@link #flush()} deletes: those of a removed execution. */
    private List<TaskRun> removedRuns = List.of();

    StoreBackedState(String executionId, KeyValueStore<String, ExecutionRecord> executions,
            KeyValueStore<String, OutputsRecord> outputs) {
        this.executionId = executionId;
        this.executions = executions;
        this.outputs = outputs;
    }

    @Override
    public Optional<Execution> execution() {
        if (!loaded) {
            ExecutionRecord record = executions.get(executionId);
            execution = record == null ? null : ExecutionMapper.fromRecord(record);
            loaded = true;
        }
        return Optional.ofNullable(execution);
    }

    @Override
    public Map<String, Object> outputs(String taskRunId) {
        Map<String, Object> pending = pendingOutputs.get(taskRunId);
        if (pending != null) {
            return pending;
        }
        OutputsRecord record = outputs.get(outputsKey(executionId, taskRunId));
        return record == null ? Map.of() : Json.readMap(record.getJson());
    }

    @Override
    public void putExecution(Execution value) {
        execution = value;
        loaded = true;
        dirty = true;
    }

    @Override
    public void putOutputs(String taskRunId, Map<String, Object> value) {
        pendingOutputs.put(taskRunId, value);
    }

    @Override
    public void removeExecution() {
        execution().ifPresent(removed -> removedRuns = removed.taskRuns());
        execution = null;
        dirty = true;
        pendingOutputs.clear();
    }

    /**
     * Writes outputs before the execution that refers to them, and removes the execution before its outputs. Under
     * at-least-once a crash can lose changelog records the producer had not sent yet; the producer sends in the
     * order of these writes (on one broker), so the stored state never names a task run whose outputs were lost.
     */
    void flush() {
        pendingOutputs.forEach((taskRunId, value) ->
                outputs.put(outputsKey(executionId, taskRunId), new OutputsRecord(Json.write(value))));
        if (dirty && execution == null) {
            executions.delete(executionId);
        } else if (dirty) {
            executions.put(executionId, ExecutionMapper.toRecord(execution));
        }
        removedRuns.forEach(run -> outputs.delete(outputsKey(executionId, run.id())));
    }

    static String outputsKey(String executionId, String taskRunId) {
        return executionId + "/" + taskRunId;
    }
}
