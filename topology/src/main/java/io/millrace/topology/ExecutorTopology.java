package io.millrace.topology;

import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.ExecutorLimits;
import io.millrace.config.MillraceConfig;
import io.millrace.core.decide.Decider;
import io.millrace.core.decide.DeciderSettings;
import io.millrace.core.expression.Expressions;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.KafkaPassThrough;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StoredTaskRun;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.StartedOffsets;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.AutoOffsetReset;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The executor as a Kafka Streams topology: a pure function of the configuration.
 *
 * <pre>
 * commands ─┐                                   ┌─> tasks.&lt;group&gt;   (worker tasks)
 *           ├─> Executor.decide [executions,    ├─> events           (every event)
 * results ──┘     outputs, timers, deferred, ───┼─> executions       (latest snapshot, compacted)
 * (results first)  admissions]                  └─> dlq
 *                    ^ global flows store
 * flows ──> Flows.load
 * </pre>
 * commands and results are co-partitioned by execution id, so one stream task owns an execution.
 */
public final class ExecutorTopology {
    /** The least time between two wall-clock punctuations (which fire due timers and retry waiting creates). */
    static final Duration TIMER_INTERVAL = Duration.ofMillis(50);
    /** How long a create waits for a flow that is not in the flows store yet. */
    static final Duration FLOW_WAIT = Duration.ofSeconds(30);

    private ExecutorTopology() {
    }

    /** The topology of an executor whose started offsets are kept in memory only (a topology under test). */
    public static Topology build(MillraceConfig config, MeterRegistry registry) {
        return build(config, registry, StartedOffsets.kept(Topics.of(config).commands().name()));
    }

    /** @param startedOffsets where the instance's tasks say how far they started what they read */
    public static Topology build(MillraceConfig config, MeterRegistry registry, StartedOffsets startedOffsets) {
        Topics topics = Topics.of(config);
        // a render on the executor holds every other execution of its stream thread: it has a time budget of its own
        var expressions = new Expressions(config.expressionLimits().withMaxTime(
                config.executorLimits().expressionMaxTime(), ExecutorLimits.EXPRESSION_MAX_TIME));
        var deciderSettings = new DeciderSettings(config.lease(), config.maxLostAttempts(), config.retention(),
                config.executorLimits().maxTaskRuns(), config.executorLimits().maxFlowableConcurrency(),
                config.executorLimits().maxSubflowDepth());
        var settings = new ExecutorProcessor.ExecutorSettings(config.lease(), TIMER_INTERVAL, FLOW_WAIT, !config.exactlyOnce(),
                config.executorLimits(), config.topicPrefix());
        var eagerCommits = EagerCommits.of(config);
        var paceGauges = new PaceGauges(registry);
        var string = Serdes.String();

        var topology = new Topology();
        topology.addSource(Names.COMMANDS_SOURCE, string.deserializer(), topics.commands().valueSerde().deserializer(),
                topics.commands().name());
        topology.addSource((AutoOffsetReset) null, Names.RESULTS_SOURCE, new ResultsFirst(), string.deserializer(),
                topics.results().valueSerde().deserializer(), topics.results().name());
        topology.addProcessor(Names.EXECUTOR,
                () -> {
                    var flows = new FlowLookup();
                    return new ExecutorProcessor(new Decider(deciderSettings, expressions, flows), flows, settings,
                            eagerCommits, paceGauges, startedOffsets, registry);
                },
                Names.COMMANDS_SOURCE, Names.RESULTS_SOURCE);
        boolean cached = config.exactlyOnce();
        topology.addStateStore(store(Names.EXECUTIONS_STORE, new StoredExecutionSerde(), cached),
                Names.EXECUTOR);
        topology.addStateStore(store(Names.TASK_RUNS_STORE, new AvroSerde<>(StoredTaskRun.getClassSchema()), cached),
                Names.EXECUTOR);
        topology.addStateStore(store(Names.OUTPUTS_STORE, new AvroSerde<>(OutputsRecord.getClassSchema()), cached),
                Names.EXECUTOR);
        topology.addStateStore(store(Names.TIMERS_STORE, new AvroSerde<>(TimerRecord.getClassSchema()), true),
                Names.EXECUTOR);
        topology.addStateStore(store(Names.DEFERRED_STORE, Topics.COMMAND_SERDE, cached), Names.EXECUTOR);
        topology.addStateStore(store(Names.ADMISSIONS_STORE, Serdes.ByteArray(), cached), Names.EXECUTOR);
        topology.addStateStore(store(Names.SLOTS_STORE, Serdes.ByteArray(), cached), Names.EXECUTOR);

        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(Names.FLOWS_STORE), string, Topics.FLOW_SERDE)
                        .withLoggingDisabled(),
                Names.FLOWS_SOURCE, string.deserializer(), Topics.FLOW_SERDE.deserializer(), topics.flows().name(),
                Names.FLOWS_LOADER, FlowLoader::new);

        topology.addSink(Names.TASKS_SINK,
                (key, value, context) -> topics.tasks(((WorkerTaskRecord) ((Encoded) value).record()).getWorkerGroup()).name(),
                string.serializer(), Encoded.SERIALIZER, Names.EXECUTOR);
        topology.addSink(Names.RESULTS_SINK, topics.results().name(), string.serializer(), Encoded.SERIALIZER,
                Names.EXECUTOR);
        topology.addSink(Names.EVENTS_SINK, topics.events().name(), string.serializer(), Encoded.SERIALIZER, Names.EXECUTOR);
        topology.addSink(Names.SNAPSHOTS_SINK, topics.executions().name(), string.serializer(), Encoded.SERIALIZER,
                ExecutorTopology::byExecution, Names.EXECUTOR);
        topology.addSink(Names.COMMANDS_SINK, topics.commands().name(), string.serializer(), Encoded.SERIALIZER,
                Names.EXECUTOR);
        topology.addSink(Names.KILLS_SINK, topics.kills().name(), string.serializer(), Encoded.SERIALIZER, Names.EXECUTOR);
        topology.addSink(Names.DEAD_LETTERS_SINK, topics.deadLetters().name(), string.serializer(), Encoded.SERIALIZER,
                Names.EXECUTOR);
        return topology;
    }

    /** One execution's snapshot records on one partition, in the order they were sent: by the execution id. */
    private static Optional<Set<Integer>> byExecution(String topic, String key, Object value, int partitions) {
        byte[] bytes = SnapshotKeys.executionId(key).getBytes(StandardCharsets.UTF_8);
        return Optional.of(Set.of(Utils.toPositive(Utils.murmur2(bytes)) % partitions));
    }

    /**
     * {@link #properties(MillraceConfig)}, with the registry where the Kafka Streams exception handlers count their
     * dead letters.
     */
    public static Properties properties(MillraceConfig config, MeterRegistry registry) {
        Properties props = properties(config);
        props.put(DeadLetters.METRICS_CONFIG, registry);
        return props;
    }

    /** How often an executor that warms another's task asks for it (docs/scaling.md, "Rebalances under load"). */
    static final long PROBING_REBALANCE_INTERVAL_MS = 60_000;

    /** Kafka Streams properties for the executor: latency-oriented defaults, then the pass-through ones. */
    public static Properties properties(MillraceConfig config) {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, Topics.executorApplicationId(config));
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, config.processingGuarantee());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.streamThreads());
        props.put(StreamsConfig.POLL_MS_CONFIG, config.pollMs());
        props.put(StreamsConfig.DEFAULT_CLIENT_SUPPLIER_CONFIG, CommitTimingClients.class); // paces eager commits
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.commitIntervalMs());
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().resolve("executor").toString());
        props.putAll(TopicAdmin.internalTopics(config));
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterDeserializationHandler.class);
        props.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProductionHandler.class);
        props.put(DeadLetters.TOPIC_CONFIG, Topics.of(config).deadLetters().name());
        props.put(DeadLetters.MAX_RECORD_BYTES_CONFIG, config.executorLimits().maxRecordBytes());
        props.put(DeadLetters.TOPIC_PREFIX_CONFIG, config.topicPrefix());
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        // A joining executor warms a copy of a task's state and takes the task at the next probing rebalance: Kafka's
        // 10 minutes left a new executor idle, and its share on the old one, that long; Kafka's least is a minute
        props.put(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG, PROBING_REBALANCE_INTERVAL_MS);
        KafkaPassThrough.engineProducerDefaults(config)
                .forEach((key, value) -> props.put(StreamsConfig.producerPrefix(key), value));
        props.putAll(config.kafka());
        return props;
    }

    /**
     * A cached store sends its changelog at the commit, one record per key written since the last one (a lease set
     * and cleared in between leaves one tombstone), instead of one per write. Under exactly-once every store is cached:
     * the transaction commits stores, records and offsets together. Under at-least-once only the timers are: there a
     * decision's state must reach its changelog before the records that follow from it are sent (see {@link Effects}),
     * while a timer that a crash loses is stored again once the replayed command is found a duplicate
     * ({@code Decider.reemit}).
     */
    private static <V> org.apache.kafka.streams.state.StoreBuilder<KeyValueStore<String, V>> store(String name,
            Serde<V> serde, boolean cached) {
        var builder = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), serde);
        return cached ? builder.withCachingEnabled() : builder;
    }

    /** Keeps the global flows store in step with the flows topic. */
    private static final class FlowLoader implements Processor<String, FlowRecord, Void, Void> {
        private KeyValueStore<String, FlowRecord> store;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(Names.FLOWS_STORE);
        }

        @Override
        public void process(Record<String, FlowRecord> record) {
            if (record.value() == null) {
                store.delete(record.key());
            } else {
                store.put(record.key(), record.value());
            }
        }
    }
}
