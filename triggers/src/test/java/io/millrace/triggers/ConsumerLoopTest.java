package io.millrace.triggers;

import static io.millrace.triggers.TriggerTests.await;
import static io.millrace.triggers.TriggerTests.broker;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.serdes.TopicAdmin;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The triggers' one consumer loop on the real broker: a round that fails is counted, and the loop starts a new consumer
 * from the group's last commit after a pause that doubles with each failure in a row; closing stops it, even mid-pause.
 */
class ConsumerLoopTest {
    @Test
    void shouldRestartFromTheLastCommitWithBackoffAndGoOn() throws Exception {
        // given: three records, and a reader whose first two rounds with records fail before they commit
        String topic = topic();
        var restarts = new AtomicInteger();
        var consumers = new AtomicInteger();
        var failures = new CopyOnWriteArrayList<Long>();
        var handled = new CopyOnWriteArrayList<String>();
        var reader = new ConsumerLoop.Reader<String, String>() {
            @Override
            public void started(KafkaConsumer<String, String> consumer) {
                consumers.incrementAndGet();
                consumer.subscribe(List.of(topic));
            }

            @Override
            public Duration readOnce(KafkaConsumer<String, String> consumer) {
                var records = consumer.poll(Duration.ofMillis(100));
                if (records.isEmpty()) {
                    return Duration.ZERO;
                }
                if (failures.size() < 2) {
                    failures.add(System.nanoTime());
                    throw new IllegalStateException("handling failed");
                }
                for (ConsumerRecord<String, String> record : records) {
                    handled.add(record.value());
                }
                consumer.commitSync();
                return Duration.ZERO;
            }
        };

        // when
        long handledAt;
        try (var loop = new ConsumerLoop<>("test-loop", () -> consumer(topic), reader, restarts::incrementAndGet)) {
            loop.start();
            await(() -> handled.size() == 3);
            handledAt = System.nanoTime();
        }

        // then: two restarts, each with a new consumer, the second after twice the first pause, then every record once
        assertThat(restarts.get()).isEqualTo(2);
        assertThat(consumers.get()).isEqualTo(3);
        assertThat(Duration.ofNanos(failures.get(1) - failures.get(0))).isGreaterThanOrEqualTo(Backoff.FIRST);
        assertThat(Duration.ofNanos(handledAt - failures.get(1))).isGreaterThanOrEqualTo(Backoff.FIRST.multipliedBy(2));
        assertThat(handled).containsExactly("v0", "v1", "v2");
    }

    @Test
    void shouldStopAtOnceWhenClosedDuringAPause() throws Exception {
        // given: a loop whose every round fails, three times already (it now pauses 4 s)
        String topic = topic();
        var restarts = new AtomicInteger();
        var reader = new ConsumerLoop.Reader<String, String>() {
            @Override
            public void started(KafkaConsumer<String, String> consumer) {
                consumer.subscribe(List.of(topic));
            }

            @Override
            public Duration readOnce(KafkaConsumer<String, String> consumer) {
                throw new IllegalStateException("always fails");
            }
        };
        var loop = new ConsumerLoop<>("test-loop", () -> consumer(topic), reader, restarts::incrementAndGet);
        loop.start();
        await(() -> restarts.get() == 3);

        // when
        long closing = System.nanoTime();
        loop.close();

        // then: it did not wait out its pause, and it failed no more
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(3));
        assertThat(loop.alive()).isFalse();
        assertThat(restarts.get()).isEqualTo(3);
    }

    private static KafkaConsumer<String, String> consumer(String group) {
        return new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker(),
                ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer());
    }

    /** A new topic of one partition with three records, v0 to v2. */
    private static String topic() throws Exception {
        String topic = "loop-" + UUID.randomUUID().toString().substring(0, 8);
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
            }
        }
        return topic;
    }
}
