package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@code io.kestra.plugin.kafka.Trigger} on the real broker: batches of at most maxRecords, one execution each, the
 * messages inline; and a batch a crash cut (its offsets committed with the batch's end, the create maybe sent) is formed
 * again the same, so its execution id is the same and the executor keeps one. (The commands producer here only records
 * what the trigger sends.)
 */
class KafkaBatchTriggerTest {

    @Test
    void shouldStartOneExecutionPerBatchOfAtMostMaxRecordsWithTheMessages() throws Exception {
        // given: 25 records
        String topic = topicWith(25);
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());

        // when
        try (var trigger = trigger(topic, topic, commands)) {
            trigger.start();
            await(() -> commands.history().size() >= 3, Duration.ofSeconds(60));
        }

        // then: 10, 10 and 5 messages, in order
        List<CreateExecution> creates = creates(commands);
        assertThat(creates).extracting(c -> c.trigger().variables().get("messagesCount")).containsExactly(10, 10, 5);
        @SuppressWarnings("unchecked")
        var second = (List<Map<String, Object>>) creates.get(1).trigger().variables().get("messages");
        assertThat(second).extracting(m -> m.get("value")).containsExactly("v10", "v11", "v12", "v13", "v14", "v15", "v16",
                "v17", "v18", "v19");
        assertThat(second.getFirst()).containsEntry("key", "k10").containsEntry("offset", 10).containsEntry("topic", topic);
        assertThat(creates).extracting(CreateExecution::executionId).doesNotHaveDuplicates();
    }

    @Test
    void shouldFormABatchThatACrashCutAgainTheSameSoItsExecutionIsOne() throws Exception {
        // given: the group's offset at 0 with the end of a batch of 0..6 in its metadata, as a crash would leave it
        String topic = topicWith(20);
        String group = topic + "-crashed";
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(Map.<String, Object>of(
                "bootstrap.servers", broker(), "group.id", group), new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            consumer.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0, BatchKafkaTrigger.BATCH_METADATA + 6)));
        }
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());

        // when
        try (var trigger = trigger(topic, group, commands)) {
            trigger.start();
            await(() -> commands.history().size() >= 2, Duration.ofSeconds(60));
        }

        // then: the cut batch again (0..6, its id from that range), then on from 7
        List<CreateExecution> creates = creates(commands);
        assertThat(creates.getFirst().trigger().variables().get("messagesCount")).isEqualTo(7);
        assertThat(creates.getFirst().executionId()).isEqualTo(TriggerIds.of("kafka-batch", "company.team", "batched", "batches",
                topic + "-0:0-6"));
        @SuppressWarnings("unchecked")
        var next = (List<Map<String, Object>>) creates.get(1).trigger().variables().get("messages");
        assertThat(next.getFirst()).containsEntry("offset", 7);
    }

    private static KafkaTrigger trigger(String topic, String group, MockProducer<String, byte[]> commands) throws Exception {
        Flow flow = new FlowParser().parse("""
                id: batched
                namespace: company.team
                triggers:
                  - id: batches
                    type: io.kestra.plugin.kafka.Trigger
                    topic: %s
                    groupId: %s
                    properties: {bootstrap.servers: "%s", auto.offset.reset: earliest}
                    interval: PT0.2S
                    maxRecords: 10
                tasks:
                  - {id: a, type: log, message: "{{ trigger.messagesCount }}"}
                """.formatted(topic, group, broker()));
        var target = new FlowTrigger(flow.namespace(), flow.id(), flow.triggers().getFirst());
        return new KafkaTrigger(target, commands, "commands", new TriggerMetrics(new SimpleMeterRegistry()),
                new SchemaRegistries());
    }

    private static String topicWith(int records) throws Exception {
        String topic = "batch-" + UUID.randomUUID().toString().substring(0, 8);
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
            }
        }
        return topic;
    }

    private static List<CreateExecution> creates(MockProducer<String, byte[]> commands) {
        return commands.history().stream()
                .map(sent -> (CreateExecution) CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(sent.value()))).toList();
    }

    private static String broker() {
        return EmbeddedKafkaBroker.shared().bootstrapServers();
    }

    private static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited %s", timeout).isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
