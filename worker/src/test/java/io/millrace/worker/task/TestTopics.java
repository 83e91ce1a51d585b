package io.millrace.worker.task;

import static org.assertj.core.api.Assertions.fail;

import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.serdes.TopicAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Topics of their own on the shared embedded broker, and a plain consumer that reads them back. */
final class TestTopics {
    static final Duration WAIT = Duration.ofSeconds(30);

    private TestTopics() {
    }

    static String bootstrapServers() {
        return EmbeddedKafkaBroker.shared().bootstrapServers();
    }

    static String create(String prefix, int partitions) throws Exception {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(name));
        }
        return name;
    }

    /** Reads the topics from their beginning, as a consumer of the given isolation level, until {@code done} holds. */
    static List<ConsumerRecord<byte[], byte[]>> read(String isolationLevel, Predicate<List<ConsumerRecord<byte[], byte[]>>> done,
                                                     String... topics) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (var consumer = consumer(isolationLevel, topics)) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!done.test(records)) {
                if (System.nanoTime() > deadline) {
                    fail("Expected records did not arrive within " + WAIT + "; got " + records);
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }

    static List<ConsumerRecord<byte[], byte[]>> readCommitted(int count, String... topics) {
        return read("read_committed", records -> records.size() >= count, topics);
    }

    /** The end offset of each partition: a committed transaction adds a marker after its records. */
    static Map<TopicPartition, Long> endOffsets(String... topics) {
        try (var consumer = consumer("read_committed", topics)) {
            return consumer.endOffsets(consumer.assignment());
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String isolationLevel, String... topics) {
        var consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = Arrays.stream(topics).flatMap(topic -> consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition()))).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }
}
