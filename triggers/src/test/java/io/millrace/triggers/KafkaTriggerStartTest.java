package io.millrace.triggers;

import static io.millrace.triggers.TriggerTests.await;
import static io.millrace.triggers.TriggerTests.broker;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.TopicAdmin;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
 * Where a RealtimeTrigger's new group starts, and that it keeps that start: with Kafka's default (the end of the topic)
 * and a stop before any record comes, the records written while it is stopped still start executions; with the time
 * its flow was saved, the records written since start executions even if the consumer joins its group later. The
 * records come from the real broker; the creates go to Kafka's {@link MockProducer}, which answers each at once, so
 * the test reads them back as sent.
 */
class KafkaTriggerStartTest {
    @Test
    void shouldKeepWhereANewGroupStartedSoARestartSkipsNothing() throws Exception {
        // given: a topic with two records from before the trigger existed
        String topic = "start-" + UUID.randomUUID().toString().substring(0, 8);
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        write(topic, "before-1", "before-2");
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());

        // when: the trigger starts, gets its partitions, and stops without reading a record
        try (var trigger = trigger(topic, commands)) {
            trigger.start();
            await(() -> committed(topic).size() == 2);
        }
        Map<TopicPartition, Long> start = committed(topic);
        write(topic, "while-stopped-1", "while-stopped-2", "while-stopped-3");
        try (var trigger = trigger(topic, commands)) {
            trigger.start();
            await(() -> commands.history().size() >= 3 && committed(topic).values().stream().mapToLong(Long::longValue).sum() == 5);
        }

        // then: it listened from the end as it was when it started, and resumed there
        assertThat(start.values().stream().mapToLong(Long::longValue).sum()).as("the ends of both partitions when it first started")
                .isEqualTo(2);
        assertThat(commands.history()).extracting(sent -> new String(sent.value()))
                .hasSize(3)
                .allMatch(command -> command.contains("while-stopped"))
                .noneMatch(command -> command.contains("before"));
    }

    @Test
    void shouldStartANewGroupAtTheRecordsWrittenSinceItsFlowWasSaved() throws Exception {
        // given: a flow saved at T, a record from before T and two from after, all written before the trigger starts
        String topic = "saved-" + UUID.randomUUID().toString().substring(0, 8);
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        Instant saved = Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.MILLIS);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, saved.minusSeconds(1).toEpochMilli(), "k", "before-the-flow")).get();
            producer.send(new ProducerRecord<>(topic, 0, saved.plusSeconds(1).toEpochMilli(), "k", "after-the-flow-1")).get();
            producer.send(new ProducerRecord<>(topic, 0, saved.plusSeconds(2).toEpochMilli(), "k", "after-the-flow-2")).get();
        }
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());

        // when: its consumer joins the group only now
        try (var trigger = new KafkaTrigger(target(topic), commands, "commands", new TriggerMetrics(new SimpleMeterRegistry()),
                new SchemaRegistries(), KafkaTrigger.Pace.NONE, saved, null)) {
            trigger.start();
            await(() -> committed(topic).getOrDefault(new TopicPartition(topic, 0), -1L) == 3);
        }

        // then: the records written since the flow was saved started executions, the one before did not
        assertThat(commands.history()).extracting(sent -> new String(sent.value()))
                .hasSize(2)
                .anyMatch(command -> command.contains("after-the-flow-1"))
                .anyMatch(command -> command.contains("after-the-flow-2"));
    }

    private static KafkaTrigger trigger(String topic, MockProducer<String, byte[]> commands) throws Exception {
        return new KafkaTrigger(target(topic), commands, "commands", new TriggerMetrics(new SimpleMeterRegistry()),
                new SchemaRegistries());
    }

    private static FlowTrigger target(String topic) throws Exception {
        Flow flow = new FlowParser().parse("""
                id: listening
                namespace: company.team
                triggers:
                  - id: events
                    type: io.kestra.plugin.kafka.RealtimeTrigger
                    topic: %s
                    groupId: %s
                    properties: {bootstrap.servers: "%s"}
                tasks:
                  - {id: a, type: log, message: "{{ trigger.value }}"}
                """.formatted(topic, topic, broker()));
        return new FlowTrigger(flow.namespace(), flow.id(), flow.triggers().getFirst());
    }

    private static void write(String topic, String... values) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringSerializer(), new StringSerializer())) {
            for (String value : values) {
                producer.send(new ProducerRecord<>(topic, value, value)).get();
            }
        }
    }

    private static Map<TopicPartition, Long> committed(String group) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get();
            var result = new HashMap<TopicPartition, Long>();
            offsets.forEach((partition, offset) -> result.put(partition, offset.offset()));
            return result;
        }
    }
}
