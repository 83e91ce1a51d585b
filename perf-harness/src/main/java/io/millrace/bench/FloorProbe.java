package io.millrace.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka floor: open-loop latency of a record through one produce and one consume on the engine's broker,
 * with the producer and consumer settings the engine's clients use (acks=all, linger 1 ms, fetch.min.bytes 1).
 * Each record carries the time it was due; the consumer in the same JVM measures against it.
 */
final class FloorProbe {
    private static final int RECORD_BYTES = 256;

    private final String bootstrapServers;
    private final String topic;

    private FloorProbe(String bootstrapServers, String topic) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
    }

    /** Creates (if needed) the probe's own topic with {@code partitions} partitions. */
    static FloorProbe create(String bootstrapServers, String topic, int partitions, short replication)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, replication))).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
        return new FloorProbe(bootstrapServers, topic);
    }

    /** Sends at {@code perSecond} for {@code duration} and answers the latencies of the records. */
    LatencyWindow measure(double perSecond, Duration duration) throws InterruptedException {
        LatencyWindow window = new LatencyWindow();
        try (var consumer = new KafkaConsumer<byte[], byte[]>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(), new ByteArrayDeserializer());
             var producer = new KafkaProducer<byte[], byte[]>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.LINGER_MS_CONFIG, 1,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            long start = System.nanoTime() + 100_000_000L;
            long end = start + duration.toNanos();
            Thread sender = Thread.ofPlatform().name("bench-floor-sender").start(() ->
                    OpenLoop.run(new RateSchedule(start, perSecond), end, (n, due) -> {
                        window.expectOne();
                        byte[] value = ByteBuffer.allocate(RECORD_BYTES).putLong(due).array();
                        producer.send(new ProducerRecord<>(topic, Long.toString(n).getBytes(), value));
                    }));
            long deadline = end + Duration.ofSeconds(10).toNanos();
            while ((sender.isAlive() || window.completed() < window.expected()) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    window.recordSuccess(System.nanoTime() - ByteBuffer.wrap(r.value()).getLong());
                }
            }
            sender.join();
        }
        return window;
    }

    /** Deletes the probe's topic. */
    void delete() throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.deleteTopics(Set.of(topic)).all().get(30, TimeUnit.SECONDS);
        }
    }
}
