package io.millrace.executor;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.RecoveringStreams;
import io.millrace.serdes.RecoveryPolicy;
import io.millrace.serdes.StartedOffsets;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.topology.ExecutorTopology;
import io.millrace.topology.Names;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;

/**
 * The executor role: creates its topics, then runs the executor topology as a Kafka Streams application that recovers
 * by itself ({@link RecoveringStreams}): a stream thread that dies is replaced after a pause, its tasks restored from
 * their changelogs; a client that fails (its global flows store out of step with the flows topic, say) starts again on
 * fresh local state.
 */
public final class Executor implements AutoCloseable {
    /** The stores whose sizes are exported, by the {@code store} tag's value. */
    private static final Map<String, String> STORES = Map.of("executions", Names.EXECUTIONS_STORE,
            "taskruns", Names.TASK_RUNS_STORE, "outputs", Names.OUTPUTS_STORE, "timers", Names.TIMERS_STORE,
            "deferred", Names.DEFERRED_STORE, "admissions", Names.ADMISSIONS_STORE);

    private final RecoveringStreams streams;
    private final StartedOffsets startedOffsets;
    private final boolean staticMember;

    private Executor(RecoveringStreams streams, StartedOffsets startedOffsets, boolean staticMember,
            MeterRegistry registry) {
        this.streams = streams;
        this.startedOffsets = startedOffsets;
        this.staticMember = staticMember;
        STORES.forEach((tag, store) -> Gauge.builder("millrace.executor.store.entries", this, e -> e.entries(store))
                .description("Entries in a store of this executor instance, as RocksDB estimates them")
                .tag("store", tag).register(registry));
        Gauge.builder("millrace.executor.timers.pending", this, e -> e.entries(Names.TIMERS_STORE))
                .description("Timers (leases, retries, timeouts, purges) waiting to fire on this instance, estimated")
                .register(registry);
    }

    /** RocksDB's estimate of a store's entries over this instance's tasks; NaN while the store cannot be read. */
    private double entries(String store) {
        if (!streams.running()) {
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
        var startedOffsets = StartedOffsets.published(config);
        var streams = RecoveringStreams.start("executor", () -> ExecutorTopology.build(config, registry, startedOffsets),
                ExecutorTopology.properties(config, registry), RecoveryPolicy.DEFAULT, registry);
        return new Executor(streams, startedOffsets, isStaticMember(config), registry);
    }

    /** Waits until the executor is RUNNING; false if the timeout passed first. */
    public boolean awaitRunning(Duration timeout) throws InterruptedException {
        return streams.awaitRunning(timeout);
    }

    public boolean isRunning() {
        return streams.running();
    }

    /** Starting, running, rebalancing (restoring state included) or recovering from a failure: not stopped. */
    public boolean isAlive() {
        return streams.alive();
    }

    /**
     * A dynamic member leaves the consumer group, so the other executors take its partitions over at once.
     * A static member ({@code kafka.group.instance.id}, e.g. a StatefulSet's pod name) stays in it: back
     * within {@code session.timeout.ms}, it gets the same partitions again, with no rebalance, and finds
     * their state where it left it.
     */
    @Override
    public void close() {
        var membership = staticMember ? CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP
                : CloseOptions.GroupMembershipOperation.LEAVE_GROUP;
        streams.close(CloseOptions.groupMembershipOperation(membership).withTimeout(Duration.ofSeconds(30)));
        startedOffsets.close();
    }

    private static boolean isStaticMember(MillraceConfig config) {
        return config.kafka().keySet().stream().anyMatch(key -> key.endsWith(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    }
}
