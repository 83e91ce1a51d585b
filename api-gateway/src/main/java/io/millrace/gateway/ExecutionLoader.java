package io.millrace.gateway;

import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import java.util.function.BiConsumer;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Mirrors the executions topic into {@link ReadModelTopology#EXECUTIONS_STORE} (see {@link ExecutionIndex}), then tells
 * the listener. An execution's snapshot is decoded as far as its summary to index it, a run snapshot is checked by its
 * header only; one that fails is skipped and counted. A tombstone deletes the snapshot, its index entries and, for an
 * execution (not a run), its log lines.
 */
final class ExecutionLoader implements Processor<String, byte[], Void, Void> {
    private final BiConsumer<String, byte[]> listener;
    private final Undecodable undecodable;
    private KeyValueStore<String, byte[]> store;
    private KeyValueStore<String, byte[]> logs;

    ExecutionLoader(BiConsumer<String, byte[]> listener, Undecodable undecodable) {
        this.listener = listener;
        this.undecodable = undecodable;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(ReadModelTopology.EXECUTIONS_STORE);
        logs = context.getStateStore(ReadModelTopology.LOGS_STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String key = record.key();
        if (key == null) {
            return;
        }
        if (record.value() == null) {
            deleted(key);
            return;
        }
        if (SnapshotKeys.isRun(key) ? storedRun(key, record.value()) : storedExecution(key, record.value())) {
            ReadModelTopology.tell(ReadModelTopology.EXECUTIONS_STORE, key, () -> listener.accept(key, record.value()));
        }
    }

    private boolean storedRun(String key, byte[] snapshot) {
        if (!Topics.RUN_SNAPSHOT_SERDE.hasHeader(snapshot)) {
            undecodable.skipped(Undecodable.Kind.RUNS, key,
                    new SerializationException("Expected a TaskRunSnapshot, but the bytes do not begin as one"));
            return false;
        }
        store.put(key, snapshot);
        return true;
    }

    private boolean storedExecution(String key, byte[] snapshot) {
        ExecutionIndex.Summary summary;
        try {
            summary = ExecutionIndex.summary(snapshot);
        } catch (SerializationException e) {
            undecodable.skipped(Undecodable.Kind.EXECUTIONS, key, e);
            return false;
        }
        store.put(key, snapshot);
        ExecutionIndex.put(store, key, summary);
        return true;
    }

    private void deleted(String key) {
        store.delete(key);
        if (SnapshotKeys.isRun(key)) {
            return;
        }
        try {
            ExecutionIndex.delete(store, key);
        } catch (SerializationException e) {
            undecodable.skipped(Undecodable.Kind.INDEX, key, e);
        }
        try (KeyValueIterator<String, byte[]> lines = logs.range(ReadModelTopology.logsFrom(key),
                ReadModelTopology.logsTo(key))) {
            lines.forEachRemaining(line -> logs.delete(line.key));
        }
    }
}
