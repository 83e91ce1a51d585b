package io.millrace.topology;

import io.millrace.core.decide.MutableExecutionState;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.cache.LruCache;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.StoredTaskRun;
import io.millrace.serdes.avro.TaskRunRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One execution's state over the executor's stores for the length of one decision. A small execution is one record,
 * its task runs' outputs included; a bigger one's header, each of its task runs and each run's outputs are stored
 * apart, so a decision writes what it changed, not every run. Running executions are kept
 * in a cache, so a decision does not read every run back either; the cache holds what the stores hold once a decision
 * is flushed, and a decision that throws must {@link #evict()} (it may have changed the cached runs half-way). Writes
 * reach the stores only on {@link #flush()}.
 */
final class StoreBackedState implements MutableExecutionState {
    /**
     * An execution of at most this many task runs keeps them inline, in its header record and its snapshot: one record
     * per decision, as most executions need. A bigger one keeps each run in a record of its own.
     */
    static final int INLINE_RUNS = 16;
    /**
     * An execution of at most {@link #INLINE_RUNS} runs whose outputs take at most this many characters of JSON
     * together keeps them inline too: a task's result then writes one changelog record, not two, and one store's
     * partition fewer joins the transaction. Bigger outputs move to the outputs store, once and for good, so a decision
     * never rewrites them and the cached executions stay small.
     */
    static final int INLINE_OUTPUTS_CHARS = 4_096;
    private static final AvroSerde<ExecutionRecord> EXECUTION_RECORD = new AvroSerde<>(ExecutionRecord.getClassSchema());

    /** The stores of one execution's state, and the executions kept in memory. */
    record Stores(KeyValueStore<String, StoredExecution> executions, KeyValueStore<String, StoredTaskRun> runs,
            KeyValueStore<String, OutputsRecord> outputs, LruCache<String, Cached> cache) {
    }

    /**
     * An execution as its last stored version has it.
     *
     * @param outputs its runs' outputs as JSON, by task run id, when inline; null when they are in the outputs store
     */
    record Cached(Execution execution, long version, Map<String, String> outputs) {
    }

    private final String executionId;
    private final Stores stores;
    private final Map<String, Map<String, Object>> pendingOutputs = new HashMap<>();
    /** The JSON of pending outputs, written once for the store and the snapshot. */
    private final Map<String, String> pendingJson = new HashMap<>();
    /** Stored outputs read during this decision (variables for a dispatch, then the snapshot, read them again). */
    private final Map<String, String> readOutputs = new HashMap<>();
    /**
     * Stored outputs as the variables see them, parsed once a decision: a ForEach that starts many lanes reading one
     * big output would otherwise parse it again for each lane's dispatch.
     */
    private final Map<String, Map<String, Object>> parsedOutputs = new HashMap<>();
    /** The task run of each outputs map {@link #outputs} handed out during this decision, by identity. */
    private final Map<Map<String, Object>, String> handedOut = new IdentityHashMap<>();
    private Execution execution;
    /** The version of the stored execution this decision started from; 0 for a new one. */
    private long version;
    /**
     * The stored outputs kept inline, by task run id; null when they are in the outputs store (or, for an execution
     * not stored yet, none are stored).
     */
    private Map<String, String> inlineOutputs;
    private boolean loaded;
    private boolean dirty;
    /** The runs of a removed execution, whose records and outputs {@link #flush()} deletes. */
    private List<TaskRun> removedRuns = List.of();
    /** The record of {@link #encodedFor}, made once a step for both the snapshot sent and the store written. */
    private ExecutionRecord encoded;
    private Execution encodedFor;
    /** The Avro body of {@link #encoded}, once asked for. */
    private byte[] encodedBody;

    StoreBackedState(String executionId, Stores stores) {
        this.executionId = executionId;
        this.stores = stores;
    }

    @Override
    public Optional<Execution> execution() {
        if (!loaded) {
            Cached cached = stores.cache().get(executionId);
            if (cached == null) {
                load();
            } else {
                execution = cached.execution();
                version = cached.version();
                inlineOutputs = cached.outputs();
            }
            loaded = true;
        }
        return Optional.ofNullable(execution);
    }

    /**
     * Reads the execution as its stored record has it. Its runs stored apart are written before it: under at-least-once
     * a crash can keep some runs of a write whose execution record it lost. Those have a greater version than the
     * record; a run that was new then is not counted in the record and is left out, a changed one is read as it was.
     * The command that made that write is read again after the crash and decided again.
     */
    private void load() {
        StoredExecution header = stores.executions().get(executionId);
        if (header == null) {
            return;
        }
        version = header.getVersion();
        inlineOutputs = header.getOutputs();
        Integer count = header.getTaskRunCount();
        if (count == null) {
            execution = ExecutionMapper.fromRecord(header.getExecution());
            return;
        }
        var runs = new ArrayList<TaskRunRecord>(count);
        var rolledBack = new ArrayList<String>();
        try (KeyValueIterator<String, StoredTaskRun> stored = stores.runs().range(
                SnapshotKeys.run(executionId, 0), SnapshotKeys.run(executionId, count - 1))) {
            stored.forEachRemaining(kv -> {
                TaskRunRecord run = kv.value.getVersion() <= version ? kv.value.getRun() : kv.value.getPrevious();
                if (run != null && run != kv.value.getRun()) {
                    rolledBack.add(run.getId());
                }
                runs.add(run);
            });
        }
        if (runs.size() != count || runs.contains(null)) {
            throw new IllegalStateException("Expected " + count + " stored task runs of execution " + executionId
                    + " at version " + version + ", but found " + runs.size() + (runs.contains(null) ? ", some newer" : ""));
        }
        execution = ExecutionMapper.fromRecord(header.getExecution(), runs);
        // the next write must not leave them newer than the execution's record, whose version then passes theirs
        rolledBack.forEach(execution.runs()::markChanged);
    }

    @Override
    public Map<String, Object> outputs(String taskRunId) {
        Map<String, Object> outputs = pendingOutputs.get(taskRunId);
        if (outputs == null) {
            outputs = parsedOutputs.computeIfAbsent(taskRunId, id -> {
                String stored = storedOutputs(id);
                return stored == null ? Map.of() : Collections.unmodifiableMap(Json.readMap(stored));
            });
        }
        if (!outputs.isEmpty()) {
            handedOut.put(outputs, taskRunId);
        }
        return outputs;
    }

    /**
     * The JSON of outputs that {@link #outputs} handed out during this decision, as the store keeps it (the same
     * object, not an equal one); null for any other value.
     */
    String outputsJsonOf(Object outputs) {
        String taskRunId = handedOut.get(outputs);
        return taskRunId == null ? null : outputsJson(taskRunId);
    }

    /** A task run's outputs as the JSON the store keeps, or null when it has none. */
    String outputsJson(String taskRunId) {
        Map<String, Object> pending = pendingOutputs.get(taskRunId);
        if (pending != null) {
            return pendingJson.computeIfAbsent(taskRunId, id -> Json.write(pending));
        }
        return storedOutputs(taskRunId);
    }

    /** A task run's stored outputs: inline in the execution's record, or in the outputs store. */
    private String storedOutputs(String taskRunId) {
        execution(); // the record says where they are
        if (inlineOutputs != null) {
            return inlineOutputs.get(taskRunId);
        }
        if (readOutputs.containsKey(taskRunId)) {
            return readOutputs.get(taskRunId);
        }
        OutputsRecord stored = stores.outputs().get(outputsKey(executionId, taskRunId));
        String json = stored == null ? null : stored.getJson();
        readOutputs.put(taskRunId, json);
        return json;
    }

    /** The runs of a removed execution (their snapshot records are deleted too); empty otherwise. */
    List<TaskRun> removedRuns() {
        return removedRuns;
    }

    @Override
    public void putExecution(Execution value) {
        execution = value;
        loaded = true;
        dirty = true;
    }

    @Override
    public void putOutputs(String taskRunId, Map<String, Object> value) {
        handedOut.remove(pendingOutputs.put(taskRunId, value));
        handedOut.remove(parsedOutputs.get(taskRunId));
        pendingJson.remove(taskRunId);
    }

    @Override
    public void removeExecution() {
        execution().ifPresent(removed -> removedRuns = List.copyOf(removed.taskRuns()));
        execution = null;
        dirty = true;
        pendingOutputs.clear();
        pendingJson.clear();
        handedOut.clear();
    }

    /** Forgets the cached execution: after a decision that failed half-way, the stores are the truth. */
    void evict() {
        stores.cache().remove(executionId);
    }

    /**
     * Writes outputs before the runs that refer to them, runs before the header, and removes the header before the
     * runs and their outputs. Under at-least-once a crash can lose changelog records the producer had not sent yet;
     * the producer sends in the order of these writes (on one broker), so the stored state never names a task run
     * whose outputs were lost.
     */
    void flush() {
        if (dirty && execution == null) {
            remove();
        } else if ((dirty || !pendingOutputs.isEmpty()) && execution().isPresent()) {
            Map<String, String> outputs = outputsToStore();
            if (dirty || outputs != inlineOutputs) {
                write(outputs);
            }
        }
        encodedFor = null; // what is decided next is encoded anew
        encoded = null;
        encodedBody = null;
    }

    /**
     * The outputs the execution's record keeps inline after this decision: those it kept and those put now, while
     * the execution may keep them ({@link #INLINE_RUNS}, {@link #INLINE_OUTPUTS_CHARS}). Otherwise null, once they are
     * in the outputs store: those put now, and, when they leave the record, those it kept.
     */
    private Map<String, String> outputsToStore() {
        // an execution not stored yet starts with its outputs inline
        Map<String, String> inline = inlineOutputs == null && version == 0 ? Map.of() : inlineOutputs;
        if (inline != null && execution.runs().size() <= INLINE_RUNS) {
            if (pendingOutputs.isEmpty()) {
                return inline;
            }
            var merged = new HashMap<>(inline);
            pendingOutputs.keySet().forEach(taskRunId -> merged.put(taskRunId, outputsJson(taskRunId)));
            long chars = 0;
            for (String json : merged.values()) {
                chars += json.length();
            }
            if (chars <= INLINE_OUTPUTS_CHARS) {
                return Collections.unmodifiableMap(merged);
            }
        }
        if (inline != null) {
            inline.forEach((taskRunId, json) -> {
                if (!pendingOutputs.containsKey(taskRunId)) {
                    stores.outputs().put(outputsKey(executionId, taskRunId), new OutputsRecord(json));
                }
            });
        }
        pendingOutputs.keySet().forEach(taskRunId ->
                stores.outputs().put(outputsKey(executionId, taskRunId), new OutputsRecord(outputsJson(taskRunId))));
        return null;
    }

    /** Writes the execution with {@code outputs} inline (null: they are in the outputs store), its changed runs first. */
    private void write(Map<String, String> outputs) {
        // never a version used before, even by a write that a crash lost and whose command is decided again
        version = Math.max(version + 1, System.currentTimeMillis());
        TaskRuns runs = execution.runs();
        if (runs.size() <= INLINE_RUNS) {
            stores.executions().put(executionId, new StoredExecutionSerde.Prepared(executionRecord(execution),
                    executionBody(execution), null, version, outputs));
        } else {
            for (TaskRun run : runsToSend(runs, false)) {
                TaskRun before = runs.beforeChanges(run.id());
                stores.runs().put(SnapshotKeys.run(executionId, runs.position(run.id())), new StoredTaskRun(version,
                        ExecutionMapper.toRecord(run), before == null ? null : ExecutionMapper.toRecord(before)));
            }
            stores.executions().put(executionId, new StoredExecutionSerde.Prepared(executionRecord(execution),
                    executionBody(execution), runs.size(), version, outputs));
        }
        inlineOutputs = outputs;
        runs.clearChanged();
        if (execution.state().isTerminal()) {
            stores.cache().remove(executionId); // only a purge or a duplicate reads it again: keep memory for runs
        } else {
            stores.cache().put(executionId, new Cached(execution, version, outputs));
        }
    }

    private void remove() {
        stores.executions().delete(executionId);
        for (int seq = 0; seq < removedRuns.size(); seq++) {
            if (removedRuns.size() > INLINE_RUNS) {
                stores.runs().delete(SnapshotKeys.run(executionId, seq));
            }
            if (inlineOutputs == null) {
                stores.outputs().delete(outputsKey(executionId, removedRuns.get(seq).id()));
            }
        }
        stores.cache().remove(executionId);
    }

    /**
     * The execution's record: with its runs inline while it has at most {@link #INLINE_RUNS}, else its header (the
     * runs go apart). Made once for the snapshot and the store write of one step, so the inputs' and the trigger's
     * JSON are written once.
     */
    ExecutionRecord executionRecord(Execution execution) {
        if (execution != encodedFor) {
            encoded = execution.runs().size() <= INLINE_RUNS ? ExecutionMapper.toRecord(execution)
                    : ExecutionMapper.toHeaderRecord(execution);
            encodedFor = execution;
            encodedBody = null;
        }
        return encoded;
    }

    /**
     * The Avro body of {@link #executionRecord}, encoded once a step: the snapshot sent and the record stored both
     * begin with it.
     */
    byte[] executionBody(Execution execution) {
        ExecutionRecord record = executionRecord(execution);
        if (encodedBody == null) {
            encodedBody = EXECUTION_RECORD.body(record);
        }
        return encodedBody;
    }

    /**
     * The runs an execution kept apart writes and sends: those that changed, or all of them when asked or when it
     * outgrew {@link #INLINE_RUNS} in this decision (its runs were inline until now).
     */
    static List<TaskRun> runsToSend(TaskRuns runs, boolean all) {
        return all || runs.sizeBeforeChanges() <= INLINE_RUNS ? runs.list() : runs.changed();
    }

    static String outputsKey(String executionId, String taskRunId) {
        return executionId + "/" + taskRunId;
    }
}
