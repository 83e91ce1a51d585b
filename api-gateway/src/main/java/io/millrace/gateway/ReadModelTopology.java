package io.millrace.gateway;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.util.Properties;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's read model as a global-only Kafka Streams topology: every gateway instance holds
 * every flow revision and the latest snapshot of every execution, so any instance answers any request.
 *
 * <pre>
 * flows      ──> Gateway.Flows.load      ──> [gateway-flows]       (namespace/id@revision → FlowRecord)
 * executions ──> Gateway.Executions.load ──> [gateway-executions]  (execution id → ExecutionSnapshot bytes,
 *                       │                                          and the search index: see ExecutionIndex)
 *                       └─> listener (waiters); a purged execution's tombstone deletes its logs
 * logs       ──> Gateway.Logs.load       ──> [gateway-logs]        (execution id/offset → LogRecord bytes)
 * </pre>
 * Snapshots are kept as the executor encoded them: every execution sends several and most are never read, so only
 * a lookup or a waiting request decodes one, never the global thread. An undecodable snapshot is stored all the
 * same and fails the lookup that reads it.
 * The names are part of the on-disk state: renaming one loses the local copy (it is then re-read).
 */
final class ReadModelTopology {
    static final String FLOWS_SOURCE = "Gateway.Flows.source";
    static final String FLOWS_LOADER = "Gateway.Flows.load";
    static final String FLOWS_STORE = "gateway-flows";
    static final String EXECUTIONS_SOURCE = "Gateway.Executions.source";
    static final String EXECUTIONS_LOADER = "Gateway.Executions.load";
    static final String EXECUTIONS_STORE = "gateway-executions";
    static final String LOGS_SOURCE = "Gateway.Logs.source";
    static final String LOGS_LOADER = "Gateway.Logs.load";
    static final String LOGS_STORE = "gateway-logs";

    private static final Logger LOG = LoggerFactory.getLogger(ReadModelTopology.class);

    private ReadModelTopology() {
    }

    /** The listeners run on the global stream thread, after the store was updated; they must not block. */
    static Topology build(Topics topics, Consumer<FlowRecord> onFlow, BiConsumer<String, byte[]> onExecution) {
        var topology = new Topology();
        var string = Serdes.String();
        topology.addGlobalStore(store(FLOWS_STORE, Topics.FLOW_SERDE), FLOWS_SOURCE,
                string.deserializer(), Topics.FLOW_SERDE.deserializer(), topics.flows().name(),
                FLOWS_LOADER, () -> new Loader<FlowRecord>(FLOWS_STORE, (key, flow) -> onFlow.accept(flow)));
        var bytes = Serdes.ByteArray();
        topology.addGlobalStore(store(EXECUTIONS_STORE, bytes), EXECUTIONS_SOURCE,
                string.deserializer(), bytes.deserializer(), topics.executions().name(),
                EXECUTIONS_LOADER, () -> new Loader<>(EXECUTIONS_STORE, onExecution) {
                    private KeyValueStore<String, byte[]> logs;

                    @Override
                    public void init(ProcessorContext<Void, Void> context) {
                        super.init(context);
                        logs = context.getStateStore(LOGS_STORE);
                    }

                    @Override
                    void stored(String key, byte[] value) {
                        ExecutionIndex.put(store, key, value);
                    }

                    @Override
                    void deleted(String key) {
                        ExecutionIndex.delete(store, key);
                        if (!SnapshotKeys.isRun(key)) {
                            try (KeyValueIterator<String, byte[]> lines = logs.range(logsFrom(key), logsTo(key))) {
                                lines.forEachRemaining(line -> logs.delete(line.key));
                            }
                        }
                    }
                });
        topology.addGlobalStore(store(LOGS_STORE, bytes), LOGS_SOURCE,
                string.deserializer(), bytes.deserializer(), topics.logs().name(), LOGS_LOADER, LogLoader::new);
        return topology;
    }

    /** The first key of an execution's log lines in {@link #LOGS_STORE}. */
    static String logsFrom(String executionId) {
        return SnapshotKeys.runsFrom(executionId);
    }

    /** The key past the last of an execution's log lines. */
    static String logsTo(String executionId) {
        return SnapshotKeys.runsTo(executionId);
    }

    /**
     * Latency first: poll often, no record cache. The processing guarantee is the configured one so
     * that under exactly-once the global consumer reads read_committed and never shows a snapshot of
     * an aborted executor transaction. Pass-through Kafka properties come last and win.
     */
    static Properties properties(MillraceConfig config) {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.topicPrefix() + "gateway");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, config.processingGuarantee());
        props.put(StreamsConfig.POLL_MS_CONFIG, config.pollMs());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.commitIntervalMs());
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().resolve("gateway").toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        // A record the gateway cannot decode is skipped (and logged): a read model must not stop over it.
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        // Global processors go through the processing exception handler too (the default from Kafka 5.0).
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        props.putAll(config.kafka());
        return props;
    }

    /** Global stores are rebuilt from their topic, so they keep no changelog. */
    private static <V> org.apache.kafka.streams.state.StoreBuilder<KeyValueStore<String, V>> store(String name, Serde<V> serde) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), serde)
                .withLoggingDisabled()
                .withCachingDisabled();
    }

    /**
     * Keeps each log line under its execution id and its offset: one execution's lines share a partition, so a
     * key-ordered scan reads them in the order they were sent. They go when their execution is purged.
     */
    private static final class LogLoader implements Processor<String, byte[], Void, Void> {
        private ProcessorContext<Void, Void> context;
        private KeyValueStore<String, byte[]> store;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.context = context;
            store = context.getStateStore(LOGS_STORE);
        }

        @Override
        public void process(Record<String, byte[]> record) {
            var metadata = context.recordMetadata();
            if (record.key() == null || record.value() == null || metadata.isEmpty()) {
                return;
            }
            store.put(logsFrom(record.key()) + "%016x".formatted(metadata.get().offset()), record.value());
        }
    }

    /** Mirrors a compacted topic into its store (a null value deletes), then tells the listener key and value. */
    private static class Loader<V> implements Processor<String, V, Void, Void> {
        private final String storeName;
        private final BiConsumer<String, V> listener;
        KeyValueStore<String, V> store;

        Loader(String storeName, BiConsumer<String, V> listener) {
            this.storeName = storeName;
            this.listener = listener;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<String, V> record) {
            if (record.key() == null) {
                return;
            }
            if (record.value() == null) {
                store.delete(record.key());
                deleted(record.key());
                return;
            }
            store.put(record.key(), record.value());
            stored(record.key(), record.value());
            try {
                listener.accept(record.key(), record.value());
            } catch (RuntimeException e) {
                // The global thread cannot be replaced if it dies: a listener bug must not take the read model down.
                LOG.error("Listener of {} failed on key {}", storeName, record.key(), e);
            }
        }

        /** After {@code key} was stored. */
        void stored(String key, V value) {
        }

        /** After a tombstone deleted {@code key}. */
        void deleted(String key) {
        }
    }
}
