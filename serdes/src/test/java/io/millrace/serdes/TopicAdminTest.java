package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class TopicAdminTest {

    @Test
    void shouldPassSecurityAndAdminPropertiesToTheAdminClient() {
        // given
        var config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", "k:9093",
                "kafka.security.protocol", "SSL", "kafka.admin.request.timeout.ms", "5000",
                "kafka.producer.linger.ms", "5"), null);

        // when
        Map<String, Object> props = TopicAdmin.adminProperties(config);

        // then
        assertThat(props).containsEntry("bootstrap.servers", "k:9093")
                .containsEntry("security.protocol", "SSL")
                .containsEntry("request.timeout.ms", "5000")
                .doesNotContainKey("producer.linger.ms")
                .doesNotContainKey("linger.ms");
    }

    @Test
    void shouldCreateEveryTopicWithTheMinInsyncReplicasSetAndWarnOfOneReplicaOnSeveralBrokers() throws Exception {
        // given
        String servers = EmbeddedKafkaBroker.shared().bootstrapServers();
        String prefix = "durable" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", servers, "topic-prefix", prefix,
                "min-insync-replicas", "1"), null);
        String topic = Topics.of(config).commands().name();

        // when
        TopicAdmin.ensure(config, List.of(Topics.of(config).commands()));

        // then: set on the topic itself, not the broker's default
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            ConfigEntry entry = admin.describeConfigs(List.of(resource)).all().get().get(resource)
                    .get("min.insync.replicas");
            assertThat(entry.value()).isEqualTo("1");
            assertThat(entry.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
        assertThat(TopicAdmin.internalTopics(config)).containsEntry("replication.factor", 1)
                .containsEntry("topic.min.insync.replicas", 1);
        assertThat(TopicAdmin.internalTopics(ConfigLoader.load(Map.of(), Map.of(), null)))
                .doesNotContainKey("topic.min.insync.replicas");
        assertThat(TopicAdmin.durabilityWarning(3, config)).startsWith("replication-factor is 1 on a cluster of 3"
                + " brokers: the loss of one broker loses");
        assertThat(TopicAdmin.durabilityWarning(1, config)).isNull();
        assertThat(TopicAdmin.durabilityWarning(3, ConfigLoader.load(Map.of(), Map.of("replication-factor", "3",
                "min-insync-replicas", "2"), null))).isNull();
    }

    /**
     * An idempotent producer that writes to a partition its leader has not set up yet may lose a whole request
     * (KAFKA-15591): once {@link TopicAdmin#awaitWritable} returned, every record written at once arrives.
     */
    @Test
    void shouldLoseNoRecordWrittenAtOnceToTopicsThatAreWritable() throws Exception {
        String servers = EmbeddedKafkaBroker.shared().bootstrapServers();
        int partitions = 8;
        int perPartition = 500;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers));
                var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                        ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000), new StringSerializer(), new StringSerializer())) {
            for (int round = 0; round < 3; round++) {
                // given
                String topic = "writable-" + UUID.randomUUID().toString().substring(0, 8);
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();

                // when
                TopicAdmin.awaitWritable(admin, List.of(topic));
                var sends = new ArrayList<Future<RecordMetadata>>();
                for (int i = 0; i < partitions * perPartition; i++) {
                    sends.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, "r" + i)));
                }
                for (var send : sends) {
                    send.get();
                }

                // then
                var ends = admin.listOffsets(java.util.stream.IntStream.range(0, partitions).boxed()
                        .collect(Collectors.toMap(p -> new TopicPartition(topic, p), p -> OffsetSpec.latest()))).all().get();
                assertThat(ends.values().stream().mapToLong(e -> e.offset()).sum()).isEqualTo((long) partitions * perPartition);
            }
        }
    }
}
