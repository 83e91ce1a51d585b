package io.millrace.triggers;

import static io.millrace.triggers.TriggerTests.await;
import static io.millrace.triggers.TriggerTests.broker;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.TopicAdmin;
import java.time.Duration;
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
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A create that Kafka never took, while the creates of later polls were taken: the trigger must read that record again,
 * and its group's offset must not move past it meanwhile. The records come from the real broker; the commands producer
 * here is Kafka's {@link MockProducer}, which answers each send when the test says, so one send can fail while those
 * after it succeed (as an idempotent producer's expired batch does, see KAFKA-15591).
 */
class KafkaTriggerSendFailureTest {
    private static final int RECORDS = 30;

    @Test
    void shouldReadARecordAgainWhenItsCreateFailedEvenIfLaterCreatesSucceeded() throws Exception {
        // given: 30 records, read five a poll, every create waiting for the test's answer
        String topic = "send-failure-" + UUID.randomUUID().toString().substring(0, 8);
        fill(topic);
        var commands = new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
        String firstId = TriggerIds.ofRecord("company.team", "failing", "events", topic, 0, 0, timestampOfFirst(topic));

        try (var trigger = trigger(topic, commands)) {
            trigger.start();
            await(() -> commands.history().size() >= RECORDS);

            // when: the first record's create fails, all the others succeed
            commands.errorNext(new TimeoutException("Expiring 1 record(s): 120000 ms has passed since batch creation"));
            while (commands.completeNext()) {
                // the polls after it
            }

            // then: the trigger reads from record 0 again and sends its create a second time
            await(() -> {
                while (commands.completeNext()) {
                    // answer the creates sent again
                }
                return commands.history().stream().skip(RECORDS).anyMatch(sent -> sent.key().equals(firstId));
            });
            await(() -> {
                while (commands.completeNext()) {
                    // and the rest
                }
                return committed(topic) == RECORDS;
            });
        }
        var keys = commands.history().stream().map(ProducerRecord::key).toList();
        assertThat(keys.stream().distinct().count()).as("one id a record").isEqualTo(RECORDS);
        assertThat(keys.stream().skip(RECORDS).toList()).as("the records read again start at the one that failed")
                .startsWith(firstId);
    }

    @Test
    void shouldStartAgainWithALongerPauseAfterEachFailureInARowThenGoOn() throws Exception {
        // given: 30 records, every create waiting for the test's answer
        String topic = "send-failures-" + UUID.randomUUID().toString().substring(0, 8);
        fill(topic);
        var commands = new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
        var metrics = new SimpleMeterRegistry();
        String firstId = TriggerIds.ofRecord("company.team", "failing", "events", topic, 0, 0, timestampOfFirst(topic));

        try (var trigger = trigger(topic, commands, metrics)) {
            trigger.start();
            await(() -> commands.history().size() >= RECORDS);

            // when: the first record's create fails, and again when it is sent again
            long firstFailure = System.nanoTime();
            commands.errorNext(new TimeoutException("Expiring 1 record(s)"));
            while (commands.completeNext()) {
                // the polls after it
            }
            await(() -> sends(commands, firstId) == 2);
            awaitNoMoreSends(commands); // all of the second pass in flight, so the loop below completes each of them
            commands.errorNext(new TimeoutException("Expiring 1 record(s)"));
            while (commands.completeNext()) {
                // the polls after it
            }

            // then: two restarts, 1 s then 2 s apart, and the trigger goes on to commit every record
            await(() -> sends(commands, firstId) == 3);
            assertThat(Duration.ofNanos(System.nanoTime() - firstFailure)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
            await(() -> {
                while (commands.completeNext()) {
                    // the creates sent again
                }
                return committed(topic) == RECORDS;
            });
            assertThat(metrics.get("millrace.trigger.restarts").tag("type", "io.kestra.plugin.kafka.RealtimeTrigger")
                    .counter().count()).isEqualTo(2.0);
        }
        assertThat(commands.history().stream().map(ProducerRecord::key).distinct().count()).isEqualTo(RECORDS);
    }

    /**
     * Waits until the trigger sends nothing more for a while: the creates it sent stay in flight until the test
     * completes them, and a failure is seen only once the poll it belongs to has all its answers.
     */
    private static void awaitNoMoreSends(MockProducer<String, byte[]> commands) throws Exception {
        int before;
        do {
            before = commands.history().size();
            Thread.sleep(500);
        } while (commands.history().size() != before);
    }

    private static long sends(MockProducer<String, byte[]> commands, String id) {
        return commands.history().stream().filter(sent -> sent.key().equals(id)).count();
    }

    private static KafkaTrigger trigger(String topic, MockProducer<String, byte[]> commands) throws Exception {
        return trigger(topic, commands, new SimpleMeterRegistry());
    }

    private static KafkaTrigger trigger(String topic, MockProducer<String, byte[]> commands,
            SimpleMeterRegistry metrics) throws Exception {
        Flow flow = new FlowParser().parse("""
                id: failing
                namespace: company.team
                triggers:
                  - id: events
                    type: io.kestra.plugin.kafka.RealtimeTrigger
                    topic: %s
                    groupId: %s
                    properties: {bootstrap.servers: "%s", auto.offset.reset: earliest, max.poll.records: "5"}
                tasks:
                  - {id: a, type: log, message: "{{ trigger.value }}"}
                """.formatted(topic, topic, broker()));
        var target = new FlowTrigger(flow.namespace(), flow.id(), flow.triggers().getFirst());
        return new KafkaTrigger(target, commands, "commands", new TriggerMetrics(metrics), new SchemaRegistries());
    }

    private static void fill(String topic) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
            }
        }
    }

    private static long timestampOfFirst(String topic) {
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(Map.<String, Object>of(
                "bootstrap.servers", broker()), new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            var partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seek(partition, 0);
            return consumer.poll(Duration.ofSeconds(10)).iterator().next().timestamp();
        }
    }

    private static long committed(String topic) throws Exception {
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            OffsetAndMetadata offset = admin.listConsumerGroupOffsets(topic).partitionsToOffsetAndMetadata().get()
                    .get(new TopicPartition(topic, 0));
            return offset == null ? -1 : offset.offset();
        }
    }
}
