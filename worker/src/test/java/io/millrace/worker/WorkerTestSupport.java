package io.millrace.worker;

import static org.assertj.core.api.Assertions.fail;

import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.TaskResult;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Plays the executor's part against the shared embedded broker: dispatches task records, reads results. */
final class WorkerTestSupport {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private WorkerTestSupport() {
    }

    /** A config with topics of its own (a fresh prefix), so tests never see each other's records. */
    static MillraceConfig config(int concurrency) {
        return config(concurrency, Map.of());
    }

    /** {@link #config(int)} with other settings too. */
    static MillraceConfig config(int concurrency, Map<String, String> settings) {
        var all = new HashMap<>(settings);
        all.put("bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers());
        all.put("topic-prefix", "worker-test-" + UUID.randomUUID().toString().substring(0, 8) + ".");
        all.put("partitions", "2");
        all.put("worker-concurrency", Integer.toString(concurrency));
        return ConfigLoader.load(Map.of(), all, null);
    }

    /** Waits until {@code condition} holds, at most {@link #TIMEOUT}. */
    static void eventually(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("Expected " + what + " within " + TIMEOUT);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("Interrupted while waiting for " + what);
            }
        }
    }

    static WorkerTaskRecord task(String executionId, String taskId, String type, Map<String, Object> properties,
                                 Map<String, Object> variables, long leaseMillis) {
        return new WorkerTaskRecord(executionId, executionId + "-" + taskId, 1, taskId, type, "default",
                Json.write(properties), Json.write(variables), leaseMillis, Instant.now());
    }

    static void dispatch(MillraceConfig config, WorkerTaskRecord... tasks) {
        try (var producer = producer(config)) {
            String topic = Topics.of(config).tasks(config.workerGroup()).name();
            for (WorkerTaskRecord task : tasks) {
                producer.send(new ProducerRecord<>(topic, task.getExecutionId(), Topics.TASK_SERDE.encode(task)));
            }
        }
    }

    /** Sends {@code values} as they are (null ones too), in order, under {@code key} to the tasks topic. */
    static void dispatchRaw(MillraceConfig config, String key, List<byte[]> values) {
        try (var producer = producer(config)) {
            String topic = Topics.of(config).tasks(config.workerGroup()).name();
            for (byte[] value : values) {
                producer.send(new ProducerRecord<>(topic, key, value));
            }
        }
    }

    private static KafkaProducer<String, byte[]> producer(MillraceConfig config) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 0), new StringSerializer(), new ByteArraySerializer());
    }

    /** Reads the whole results topic, in order within each partition (so within each execution). */
    static final class ResultReader implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final List<TaskResult> results = new ArrayList<>();

        ResultReader(MillraceConfig config) {
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
                    new ByteArrayDeserializer());
            String topic = Topics.of(config).results().name();
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        /** Polls until the results read so far satisfy {@code done}; returns them all. */
        List<TaskResult> await(Predicate<List<TaskResult>> done) {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!done.test(results)) {
                if (System.nanoTime() > deadline) {
                    fail("Expected results did not arrive within " + TIMEOUT + "; got " + results);
                }
                consumer.poll(Duration.ofMillis(50)).forEach(r ->
                        results.add(CommandMapper.fromRecord(Topics.RESULT_SERDE.decode(r.value()))));
            }
            return List.copyOf(results);
        }

        /** Waits for a final (non-RUNNING) result of each task run given. */
        List<TaskResult> awaitFinal(String... taskRunIds) {
            return await(all -> List.of(taskRunIds).stream().allMatch(id -> all.stream()
                    .anyMatch(r -> r.taskRunId().equals(id) && r.state().isTerminal())));
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    static TaskResult finalResult(List<TaskResult> results, String taskRunId) {
        return results.stream().filter(r -> r.taskRunId().equals(taskRunId) && r.state().isTerminal()).findFirst()
                .orElseThrow();
    }
}
