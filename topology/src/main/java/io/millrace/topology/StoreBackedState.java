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
    /** The JSON of pending outputs, written once for the store and the snapshot. */
    private final Map<String, String> pendingJson = new HashMap<>();
    /** Stored outputs read during this decision (variables for a dispatch, then the snapshot, read them again). */
    private final Map<String, OutputsRecord> readOutputs = new HashMap<>();
    private Execution execution;
    /** {@link #execution} in its stored form, once asked for; built again after a change. */
    private ExecutionRecord record;
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
        OutputsRecord stored = storedOutputs(taskRunId);
        return stored == null ? Map.of() : Json.readMap(stored.getJson());
    }

    /** A task run's outputs as the JSON the store keeps, or null when it has none. */
    String outputsJson(String taskRunId) {
        Map<String, Object> pending = pendingOutputs.get(taskRunId);
        if (pending != null) {
            return pendingJson.computeIfAbsent(taskRunId, id -> Json.write(pending));
        }
        OutputsRecord stored = storedOutputs(taskRunId);
        return stored == null ? null : stored.getJson();
    }

    private OutputsRecord storedOutputs(String taskRunId) {
        if (readOutputs.containsKey(taskRunId)) {
            return readOutputs.get(taskRunId);
        }
        OutputsRecord stored = outputs.get(outputsKey(executionId, taskRunId));
        readOutputs.put(taskRunId, stored);
        return stored;
    }

    /** The execution in its stored form (built once per change: the store and the snapshot both take it). */
    Optional<ExecutionRecord> executionRecord() {
        if (record == null && execution().isPresent()) {
            record = ExecutionMapper.toRecord(execution);
        }
        return Optional.ofNullable(record);
    }

    @Override
    public void putExecution(Execution value) {
        execution = value;
        record = null;
        loaded = true;
        dirty = true;
    }

    @Override
    public void putOutputs(String taskRunId, Map<String, Object> value) {
        pendingOutputs.put(taskRunId, value);
        pendingJson.remove(taskRunId);
    }

    @Override
    public void removeExecution() {
        execution().ifPresent(removed -> removedRuns = removed.taskRuns());
        execution = null;
        record = null;
        dirty = true;
        pendingOutputs.clear();
        pendingJson.clear();
    }

    /**
     * Writes outputs before the execution that refers to them, and removes the execution before its outputs. Under
     * at-least-once a crash can lose changelog records the producer had not sent yet; the producer sends in the
     * order of these writes (on one broker), so the stored state never names a task run whose outputs were lost.
     */
    void flush() {
        pendingOutputs.keySet().forEach(taskRunId ->
                outputs.put(outputsKey(executionId, taskRunId), new OutputsRecord(outputsJson(taskRunId))));
        if (dirty && execution == null) {
            executions.delete(executionId);
        } else if (dirty) {
            executions.put(executionId, executionRecord().orElseThrow());
        }
        removedRuns.forEach(run -> outputs.delete(outputsKey(executionId, run.id())));
    }

    static String outputsKey(String executionId, String taskRunId) {
        return executionId + "/" + taskRunId;
    }
}
