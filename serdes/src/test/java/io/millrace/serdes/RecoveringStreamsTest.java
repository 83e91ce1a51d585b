package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client whose local state points at offsets the cluster does not have, on a real broker: past the end of a topic
 * made again (state from an earlier cluster), or before what retention kept (state older than the retention).
 */
class RecoveringStreamsTest {
    private static final RecoveryPolicy FAST = new RecoveryPolicy(Duration.ofMillis(100), Duration.ofMillis(400),
            Duration.ofMinutes(1));
    private static final String STORE = "test-global";

    @TempDir
    Path stateDir;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final String prefix = "recovering" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @Test
    void shouldRebuildAClientWhoseStoredOffsetsArePastWhatTheTopicHolds() throws Exception {
        // given: a global store that read two records of a topic that was then deleted and made again, empty
        String topic = topic("recreated");
        produce(topic, "a", "b");
        readTwoRecords(topic);
        recreate(topic);

        // when
        try (var streams = RecoveringStreams.start("test", () -> globalTopology(topic), properties(), FAST, registry)) {

            // then: ready again by itself, on what the topic holds now, and the reset counted
            assertThat(streams.awaitRunning(Duration.ofSeconds(60))).isTrue();
            produce(topic, "c");
            awaitEntries(streams, 1);
            assertThat(resets()).isEqualTo(1.0);
            assertThat(streams.alive()).isTrue();
        }
    }

    @Test
    void shouldRebuildAClientWhoseStoredOffsetsAreBeforeWhatTheTopicStillHolds() throws Exception {
        // given: a global store that read two records, then two more records of which retention kept only the last
        String topic = topic("retained");
        produce(topic, "a", "b");
        readTwoRecords(topic);
        produce(topic, "c", "d");
        try (Admin admin = admin()) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(3))).all().get();
        }

        // when
        try (var streams = RecoveringStreams.start("test", () -> globalTopology(topic), properties(), FAST, registry)) {

            // then
            assertThat(streams.awaitRunning(Duration.ofSeconds(60))).isTrue();
            awaitEntries(streams, 1);
            assertThat(resets()).isEqualTo(1.0);
        }
    }

    private void readTwoRecords(String topic) throws InterruptedException {
        try (var streams = RecoveringStreams.start("test", () -> globalTopology(topic), properties(), FAST, registry)) {
            assertThat(streams.awaitRunning(Duration.ofSeconds(60))).isTrue();
            awaitEntries(streams, 2);
        }
        assertThat(resets()).isZero();
    }

    private double resets() {
        return registry.get("millrace.state.resets").tag("role", "test").counter().count();
    }

    private static Topology globalTopology(String topic) {
        var topology = new Topology();
        topology.addGlobalStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.String(),
                        Serdes.String()).withLoggingDisabled(), "source", Serdes.String().deserializer(),
                Serdes.String().deserializer(), topic, "load", () -> new Processor<String, String, Void, Void>() {
                    private KeyValueStore<String, String> store;

                    @Override
                    public void init(ProcessorContext<Void, Void> context) {
                        store = context.getStateStore(STORE);
                    }

                    @Override
                    public void process(Record<String, String> record) {
                        store.put(record.key(), record.value());
                    }
                });
        return topology;
    }

    private Properties properties() {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, prefix + "global");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafkaBroker.shared().bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        return props;
    }

    private static void awaitEntries(RecoveringStreams streams, long entries) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long found = -1;
        while (System.nanoTime() < deadline) {
            try {
                found = streams.store(StoreQueryParameters.fromNameAndType(STORE,
                        QueryableStoreTypes.<String, String>keyValueStore())).approximateNumEntries();
                if (found == entries) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // restoring
            }
            Thread.sleep(50);
        }
        throw new AssertionError("Expected " + entries + " entries in the global store, found " + found);
    }

    private String topic(String name) throws Exception {
        String topic = prefix + name;
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        return topic;
    }

    private static void recreate(String topic) throws Exception {
        try (Admin admin = admin()) {
            admin.deleteTopics(List.of(topic)).all().get();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
                    return;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(100); // still being deleted
                }
            }
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", EmbeddedKafkaBroker.shared().bootstrapServers()));
    }

    /** One record a key, each key its own value, in order. */
    private static void produce(String topic, String... keys) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers",
                EmbeddedKafkaBroker.shared().bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            for (String key : keys) {
                producer.send(new ProducerRecord<>(topic, key, key)).get();
            }
        }
    }
}
