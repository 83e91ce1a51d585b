package io.millrace.broker;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedKafkaBrokerTest {

    @Test
    void shouldKeepTopicsAndRecordsAcrossRestart(@TempDir Path dataDir) throws Exception {
        // given
        String bootstrapServers;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir, 0)) {
            bootstrapServers = broker.bootstrapServers();
            createTopic(broker, "orders");
            produce(broker, new ProducerRecord<>("orders", "k1", "v1"));
            assertThat(consumeAll(broker, "orders", "read_uncommitted", 1)).containsExactly("k1=v1");
        }
        int port = Integer.parseInt(bootstrapServers.substring(bootstrapServers.lastIndexOf(':') + 1));

        // when
        try (EmbeddedKafkaBroker restarted = EmbeddedKafkaBroker.start(dataDir, port)) {

            // then
            assertThat(restarted.bootstrapServers()).isEqualTo(bootstrapServers);
            assertThat(restarted.dataDir()).isEqualTo(dataDir.toAbsolutePath());
            assertThat(consumeAll(restarted, "orders", "read_uncommitted", 1)).containsExactly("k1=v1");
        }
    }

    @Test
    void shouldExposeCommittedTransactionsToReadCommittedConsumers() throws Exception {
        // given
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.shared();
        String topic = "tx-" + UUID.randomUUID();
        createTopic(broker, topic);

        // when
        try (KafkaProducer<String, String> producer = producer(broker,
                Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + UUID.randomUUID()))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed"));
            producer.commitTransaction();
        }

        // then
        assertThat(consumeAll(broker, topic, "read_committed", 1)).containsExactly("k=committed");
    }

    @Test
    void shouldRetryATransactionsFirstRecordsEveryMillisecondWhileThePreviousCommitEnds() throws Exception {
        // when: the broker's own view of its settings (a misspelt key would not be there)
        Config config = brokerConfig(EmbeddedKafkaBroker.shared());

        // then: not Kafka's 20 ms (see docs/TUNING.md, "Broker settings for exactly-once")
        assertThat(config.get("add.partitions.to.txn.retry.backoff.ms").value()).isEqualTo("1");
    }

    @Test
    void shouldLookForTimedOutTransactionsEverySecond() throws Exception {
        // when
        Config config = brokerConfig(EmbeddedKafkaBroker.shared());

        // then: not Kafka's 10 s, which a killed executor's open transaction waits out on top of its own timeout
        assertThat(config.get("transaction.abort.timed.out.transaction.cleanup.interval.ms").value()).isEqualTo("1000");
    }

    @Test
    void shouldRunAsManyRequestThreadsAsTheCoresItSharesWithTheEngineCanUse() throws Exception {
        // when
        Config config = brokerConfig(EmbeddedKafkaBroker.shared());

        // then: this machine's share, and Kafka's defaults from 16 cores
        Map<String, String> here = EmbeddedKafkaBroker.requestThreads(Runtime.getRuntime().availableProcessors());
        assertThat(config.get("num.network.threads").value()).isEqualTo(here.get("num.network.threads"));
        assertThat(config.get("num.io.threads").value()).isEqualTo(here.get("num.io.threads"));
        assertThat(EmbeddedKafkaBroker.requestThreads(2)).containsOnly(
                Map.entry("num.network.threads", "1"), Map.entry("num.io.threads", "2"));
        assertThat(EmbeddedKafkaBroker.requestThreads(8)).containsOnly(
                Map.entry("num.network.threads", "2"), Map.entry("num.io.threads", "4"));
        assertThat(EmbeddedKafkaBroker.requestThreads(16)).containsOnly(
                Map.entry("num.network.threads", "3"), Map.entry("num.io.threads", "8"));
    }

    @Test
    void shouldCreateATopicOnFirstUseOnlyWhenAsked(@TempDir Path dataDir) throws Exception {
        // given: a broker that creates topics on first use (the standalone one), and the tests' shared one, which does not
        try (EmbeddedKafkaBroker standalone = EmbeddedKafkaBroker.start(dataDir, 0, true)) {
            // when
            produce(standalone, new ProducerRecord<>("never-created", "k", "v"));

            // then
            assertThat(consumeAll(standalone, "never-created", "read_uncommitted", 1)).containsExactly("k=v");
        }
        try (KafkaProducer<String, String> producer = producer(EmbeddedKafkaBroker.shared(),
                Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000))) {
            var send = producer.send(new ProducerRecord<>("never-created-" + UUID.randomUUID(), "k", "v"));
            assertThat(org.assertj.core.api.Assertions.catchThrowable(send::get)).isNotNull();
        }
    }

    @Test
    void shouldReturnTheSameRunningSharedBroker() {
        // given
        EmbeddedKafkaBroker first = EmbeddedKafkaBroker.shared();

        // when
        EmbeddedKafkaBroker second = EmbeddedKafkaBroker.shared();

        // then
        assertThat(second).isSameAs(first);
        assertThat(second.bootstrapServers()).matches("localhost:\\d+");
    }

    private static void createTopic(EmbeddedKafkaBroker broker, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    private static void produce(EmbeddedKafkaBroker broker, ProducerRecord<String, String> record) throws Exception {
        try (KafkaProducer<String, String> producer = producer(broker, Map.of())) {
            producer.send(record).get();
        }
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafkaBroker broker, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(extra);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /** Reads the topic from the start with a fresh group until it saw the expected count or 15 s passed. */
    private static List<String> consumeAll(EmbeddedKafkaBroker broker, String topic, String isolation, int expected) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(record.key() + "=" + record.value());
                }
            }
        }
        return seen;
    }

    /** The broker's own view of its settings, as an operator's admin client reads them. */
    private static Config brokerConfig(EmbeddedKafkaBroker broker) throws Exception {
        var node = new ConfigResource(ConfigResource.Type.BROKER, "1");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            return admin.describeConfigs(List.of(node)).all().get().get(node);
        }
    }
}
