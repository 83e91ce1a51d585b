package io.millrace.gateway;

import io.millrace.core.execution.State;
import io.millrace.serdes.Json;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.StateHistoryRecord;
import io.millrace.serdes.avro.StateValue;
import io.millrace.serdes.avro.TriggerRecord;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The executions search index, kept in the executions store beside the snapshots under keys that start with
 * {@code /} (an execution id never has one), so that it is rebuilt with the store from the topic:
 * <pre>
 * /f/{namespace}/{flowId}/{start}/{id}  → summary     (a flow's executions, newest first)
 * /t/{start}/{id}                       → summary     (all executions, newest first)
 * /e/{id}                               → summary     (where the execution's entries are)
 * </pre>
 * {@code start} is the start date's epoch millis subtracted from Long.MAX_VALUE, in 16 hex digits, so a key-ordered
 * scan reads newest first. A summary is what search filters on.
 */
final class ExecutionIndex {
    static final String BY_FLOW = "/f/";
    static final String BY_TIME = "/t/";
    private static final String BY_ID = "/e/";

    /** What the search filters and sorts on, and the statistics count; {@code end} is null until it ends. */
    record Summary(String id, String namespace, String flowId, String state, long start, Map<String, String> labels,
            String triggerId, String triggerType, Long end) {
    }

    /** An execution snapshot's fields the index needs; the decoder skips the rest (task runs, inputs, outputs). */
    private static final Schema EXECUTION = SchemaBuilder.record("ExecutionRecord").namespace(ExecutionRecord.getClassSchema().getNamespace())
            .fields()
            .requiredString("id").requiredString("namespace").requiredString("flowId")
            .name("labels").type().map().values().stringType().noDefault()
            .name("state").type(StateValue.getClassSchema()).noDefault()
            .name("histories").type().array().items(StateHistoryRecord.getClassSchema()).noDefault()
            .name("trigger").type().optional().type(TriggerRecord.getClassSchema())
            .endRecord();
    private static final BinaryMessageDecoder<GenericRecord> SUMMARIES = AvroSerde.projection(ExecutionSnapshot.getClassSchema(),
            SchemaBuilder.record("ExecutionSnapshot").namespace(ExecutionSnapshot.getClassSchema().getNamespace()).fields()
                    .name("execution").type(EXECUTION).noDefault().endRecord());

    private ExecutionIndex() {
    }

    /**
     * The summary of an execution's snapshot (not a run snapshot's), decoding only the fields it needs.
     *
     * @throws SerializationException when the snapshot does not decode
     */
    static Summary summary(byte[] snapshot) {
        try {
            return summary((GenericRecord) SUMMARIES.decode(snapshot).get("execution"));
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Unable to decode an execution snapshot: " + e.getMessage(), e);
        }
    }

    /**
     * Indexes an execution's snapshot by its summary. Only a snapshot that changes its summary (a new execution, a new
     * state) writes: most snapshots of a running execution change only its runs.
     */
    static void put(KeyValueStore<String, byte[]> store, String key, Summary summary) {
        byte[] value = Json.write(summary).getBytes(StandardCharsets.UTF_8);
        if (java.util.Arrays.equals(value, store.get(BY_ID + key))) {
            return;
        }
        long start = summary.start();
        store.put(BY_ID + key, value);
        store.put(BY_FLOW + summary.namespace() + "/" + summary.flowId() + "/" + order(start) + "/" + key, value);
        store.put(BY_TIME + order(start) + "/" + key, value);
    }

    /**
     * Drops an execution's entries, after its snapshot's tombstone. An entry that does not read is dropped alone (the
     * others cannot be found without it; a search skips them, as their execution is gone).
     *
     * @throws SerializationException when the execution's entry did not read (after dropping it)
     */
    static void delete(KeyValueStore<String, byte[]> store, String key) {
        byte[] known = store.get(BY_ID + key);
        if (known == null) {
            return;
        }
        store.delete(BY_ID + key);
        Summary summary = read(known);
        store.delete(BY_FLOW + summary.namespace() + "/" + summary.flowId() + "/" + order(summary.start()) + "/" + key);
        store.delete(BY_TIME + order(summary.start()) + "/" + key);
    }

    /**
     * The summaries under a prefix, in key order (newest first), until {@code visit} answers false. An entry that does
     * not read is told to {@code undecodable} and skipped.
     */
    static void scan(ReadOnlyKeyValueStore<String, byte[]> store, String prefix, Predicate<Summary> visit,
            Undecodable undecodable) {
        scan(store, prefix, 0, Long.MAX_VALUE, visit, undecodable);
    }

    /** As {@link #scan(ReadOnlyKeyValueStore, String, Predicate, Undecodable)}, of the executions started in [from, to). */
    static void scan(ReadOnlyKeyValueStore<String, byte[]> store, String prefix, long from, long to,
            Predicate<Summary> visit, Undecodable undecodable) {
        String newest = to == Long.MAX_VALUE ? prefix : prefix + order(to - 1);
        String oldest = prefix + (from <= 0 ? "" : order(from) + "/") + Character.MAX_VALUE;
        try (KeyValueIterator<String, byte[]> entries = store.range(newest, oldest)) {
            while (entries.hasNext()) {
                var entry = entries.next();
                Summary summary;
                try {
                    summary = read(entry.value);
                } catch (SerializationException e) {
                    undecodable.skipped(Undecodable.Kind.INDEX, entry.key, e);
                    continue;
                }
                if (!visit.test(summary)) {
                    return;
                }
            }
        }
    }

    private static long millis(Object date) {
        return date instanceof Instant instant ? instant.toEpochMilli() : date == null ? 0 : ((Number) date).longValue();
    }

    private static Summary summary(GenericRecord execution) {
        List<?> histories = (List<?>) execution.get("histories");
        long start = histories.isEmpty() ? 0 : millis(((GenericRecord) histories.getFirst()).get("date"));
        String state = execution.get("state").toString();
        Long end = histories.isEmpty() || !State.valueOf(state).isTerminal() ? null
                : millis(((GenericRecord) histories.getLast()).get("date"));
        var labels = new TreeMap<String, String>();
        ((Map<?, ?>) execution.get("labels")).forEach((k, v) -> labels.put(k.toString(), v.toString()));
        var trigger = (GenericRecord) execution.get("trigger");
        return new Summary(execution.get("id").toString(), execution.get("namespace").toString(),
                execution.get("flowId").toString(), state, start, labels,
                trigger == null ? null : trigger.get("id").toString(), trigger == null ? null : trigger.get("type").toString(),
                end);
    }

    static String flowPrefix(String namespace, String flowId) {
        return BY_FLOW + namespace + "/" + flowId + "/";
    }

    private static String order(long start) {
        return "%016x".formatted(Long.MAX_VALUE - start);
    }

    private static Summary read(byte[] value) {
        try {
            return Json.MAPPER.readValue(value, Summary.class);
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Expected an execution summary in the index, but it does not read: "
                    + e.getMessage(), e);
        }
    }
}
