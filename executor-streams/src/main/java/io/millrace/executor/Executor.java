package io.millrace.executor;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.KafkaMeters;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.topology.ExecutorTopology;
import io.millrace.topology.Names;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The executor role: creates its topics, then runs the executor topology as a Kafka Streams application. */
public final class Executor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Executor.class);

    /** The stores whose sizes are exported, by the {@code store} tag's value. */
    private static final Map<String, String> STORES = Map.of("executions", Names.EXECUTIONS_STORE,
            "taskruns", Names.TASK_RUNS_STORE, "outputs", Names.OUTPUTS_STORE, "timers", Names.TIMERS_STORE,
            "deferred", Names.DEFERRED_STORE);

    private final KafkaStreams streams;
    private final boolean staticMember;
    private final KafkaMeters.Bound metrics;
    private final CountDownLatch running = new CountDownLatch(1);

    private Executor(KafkaStreams streams, boolean staticMember, MeterRegistry registry) {
        this.streams = streams;
        this.staticMember = staticMember;
        this.metrics = KafkaMeters.bind(registry,
                refresh -> new KafkaStreamsMetrics(streams, List.of(), refresh, KafkaMeters.REFRESH));
        STORES.forEach((tag, store) -> Gauge.builder("millrace.executor.store.entries", this, e -> e.entries(store))
                .description("Entries in a store of this executor instance, as RocksDB estimates them")
                .tag("store", tag).register(registry));
        Gauge.builder("millrace.executor.timers.pending", this, e -> e.entries(Names.TIMERS_STORE))
                .description("Timers (leases, retries, timeouts, purges) waiting to fire on this instance, estimated")
                .register(registry);
    }

    /** RocksDB's estimate of a store's entries over this instance's tasks; NaN while the store cannot be read. */
    private double entries(String store) {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return Double.NaN;
        }
        try {
            return streams.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()))
                    .approximateNumEntries();
        } catch (RuntimeException e) {
            return Double.NaN; // rebalancing, or a store being restored
        }
    }

    /** Starts the executor; {@link #awaitRunning} tells when it processes. */
    public static Executor start(MillraceConfig config, MeterRegistry registry) {
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, topics.executorTopics(List.of(config.workerGroup())));
        TopicAdmin.requireCoPartitioned(config, topics.commands(), topics.results());
        var streams = new KafkaStreams(ExecutorTopology.build(config, registry), ExecutorTopology.properties(config, registry));
        var executor = new Executor(streams, isStaticMember(config), registry);
        streams.setStateListener((next, previous) -> {
            LOG.info("Executor {} -> {}", previous, next);
            if (next == KafkaStreams.State.RUNNING) {
                executor.running.countDown();
            }
        });
        // A stream thread that dies is replaced; its tasks restore from their changelogs.
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("Executor stream thread failed; replacing it", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.start();
        return executor;
    }

    public boolean awaitRunning(Duration timeout) throws InterruptedException {
        return running.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean isRunning() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    /** Starting, running or rebalancing (restoring state included): not failed nor stopped. */
    public boolean isAlive() {
        KafkaStreams.State state = streams.state();
        return state == KafkaStreams.State.CREATED || state.isRunningOrRebalancing();
    }

    /**
     * A dynamic member leaves the consumer group, so the other executors take its partitions over at once.
     * A static member ({@code kafka.group.instance.id}, e.g. a StatefulSet's pod name) stays in it: back
     * within {@code session.timeout.ms}, it gets the same partitions again, with no rebalance, and finds
     * their state where it left it.
     */
    @Override
    public void close() {
        metrics.close();
        var membership = staticMember ? CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP
                : CloseOptions.GroupMembershipOperation.LEAVE_GROUP;
        streams.close(CloseOptions.groupMembershipOperation(membership).withTimeout(Duration.ofSeconds(30)));
    }

    private static boolean isStaticMember(MillraceConfig config) {
        return config.kafka().keySet().stream().anyMatch(key -> key.endsWith(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    }
}
