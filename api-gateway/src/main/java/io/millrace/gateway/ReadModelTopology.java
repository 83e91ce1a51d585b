package io.millrace.gateway;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.util.Properties;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
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
 *                       └─> listener (log followers)
 * </pre>
 * Snapshots are kept as the executor encoded them: every execution sends several and most are never read, so only
 * a lookup or a waiting request decodes one in full. On the way in a loader checks what it can afford to: a flow and
 * an execution's snapshot are decoded (the store keeps flows decoded; the index needs the snapshot's summary), a run
 * snapshot and a log line only by their header ({@code AvroSerde.hasHeader}). A record that fails is skipped and
 * counted ({@link Undecodable}), never stored: a read model must not stop over a record.
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

    /**
     * The listeners run on the global stream thread, after the store was updated; they must not block.
     * {@code onFlowsChanged} runs after each write to the flows store (a revision or a tombstone), before
     * {@code onFlow}.
     */
    static Topology build(Topics topics, Runnable onFlowsChanged, Consumer<FlowRecord> onFlow,
            BiConsumer<String, byte[]> onExecution, Consumer<String> onLog, Undecodable undecodable) {
        var topology = new Topology();
        var string = Serdes.String();
        var bytes = Serdes.ByteArray();
        topology.addGlobalStore(store(FLOWS_STORE, Topics.FLOW_SERDE), FLOWS_SOURCE,
                string.deserializer(), bytes.deserializer(), topics.flows().name(),
                FLOWS_LOADER, () -> new FlowLoader(onFlowsChanged, onFlow, undecodable));
        topology.addGlobalStore(store(EXECUTIONS_STORE, bytes), EXECUTIONS_SOURCE,
                string.deserializer(), bytes.deserializer(), topics.executions().name(),
                EXECUTIONS_LOADER, () -> new ExecutionLoader(onExecution, undecodable));
        topology.addGlobalStore(store(LOGS_STORE, bytes), LOGS_SOURCE,
                string.deserializer(), bytes.deserializer(), topics.logs().name(), LOGS_LOADER,
                () -> new LogLoader(onLog, undecodable));
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
        // Values arrive as bytes and the loaders decode them; a key is a string, which always decodes.
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        // Global processors go through the processing exception handler too (the default from Kafka 5.0).
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        props.putAll(config.kafka());
        return props;
    }

    /** Runs a listener on the global thread, which cannot be replaced if it dies: a listener's bug must not stop it. */
    static void tell(String store, String key, Runnable listener) {
        try {
            listener.run();
        } catch (RuntimeException e) {
            LOG.error("Listener of {} failed on key {}", store, key, e);
        }
    }

    /** Global stores are rebuilt from their topic, so they keep no changelog. */
    private static <V> org.apache.kafka.streams.state.StoreBuilder<KeyValueStore<String, V>> store(String name, Serde<V> serde) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), serde)
                .withLoggingDisabled()
                .withCachingDisabled();
    }

    /** Mirrors the flows topic, each revision decoded once, then tells the listener. */
    private static final class FlowLoader implements Processor<String, byte[], Void, Void> {
        private final Runnable changed;
        private final Consumer<FlowRecord> listener;
        private final Undecodable undecodable;
        private KeyValueStore<String, FlowRecord> store;

        FlowLoader(Runnable changed, Consumer<FlowRecord> listener, Undecodable undecodable) {
            this.changed = changed;
            this.listener = listener;
            this.undecodable = undecodable;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(FLOWS_STORE);
        }

        @Override
        public void process(Record<String, byte[]> record) {
            if (record.key() == null) {
                return;
            }
            if (record.value() == null) {
                store.delete(record.key());
                tell(FLOWS_STORE, record.key(), changed);
                return;
            }
            FlowRecord flow;
            try {
                flow = Topics.FLOW_SERDE.decode(record.value());
            } catch (SerializationException e) {
                undecodable.skipped(Undecodable.Kind.FLOWS, record.key(), e);
                return;
            }
            store.put(record.key(), flow);
            tell(FLOWS_STORE, record.key(), changed);
            tell(FLOWS_STORE, record.key(), () -> listener.accept(flow));
        }
    }

    /**
     * Keeps each log line under its execution id and its offset: one execution's lines share a partition, so a
     * key-ordered scan reads them in the order they were sent. They go when their execution is purged.
     */
    private static final class LogLoader implements Processor<String, byte[], Void, Void> {
        private final Consumer<String> listener;
        private final Undecodable undecodable;
        private ProcessorContext<Void, Void> context;
        private KeyValueStore<String, byte[]> store;

        LogLoader(Consumer<String> listener, Undecodable undecodable) {
            this.listener = listener;
            this.undecodable = undecodable;
        }

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
            if (!Topics.LOG_SERDE.hasHeader(record.value())) {
                undecodable.skipped(Undecodable.Kind.LOGS, record.key(),
                        new SerializationException("Expected a LogRecord, but the bytes do not begin as one"));
                return;
            }
            String key = logsFrom(record.key()) + "%016x".formatted(metadata.get().offset());
            store.put(key, record.value());
            tell(LOGS_STORE, key, () -> listener.accept(key));
        }
    }
}
