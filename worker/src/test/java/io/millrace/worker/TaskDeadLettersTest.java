package io.millrace.worker;

import static io.millrace.worker.WorkerTestSupport.dispatchRaw;
import static io.millrace.worker.WorkerTestSupport.finalResult;
import static io.millrace.worker.WorkerTestSupport.task;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.core.execution.State;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.worker.WorkerTestSupport.ResultReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** A task record the worker cannot read goes to the dead-letter topic, and the worker goes on. */
class TaskDeadLettersTest {

    @Test
    void shouldDeadLetterUnreadableTaskRecordsCommitThemAndRunTheNextTask() throws Exception {
        // given: in one partition (one key), bytes that are not a task record, a null value, then a task
        MillraceConfig config = WorkerTestSupport.config(4);
        byte[] garbage = "not a task record".getBytes(StandardCharsets.UTF_8);
        var meters = new SimpleMeterRegistry();
        String tasksTopic = Topics.of(config).tasks(config.workerGroup()).name();

        // when
        State state;
        try (Worker worker = Worker.start(config, meters); var results = new ResultReader(config)) {
            dispatchRaw(config, "exec-d", Arrays.asList(garbage, null, Topics.TASK_SERDE.encode(
                    task("exec-d", "after", TaskTypes.RETURN, Map.of("format", "ran"), Map.of(), 60_000))));
            state = finalResult(results.awaitFinal("exec-d-after"), "exec-d-after").state();
        }
        // in offset order: the two letters are written by whichever threads took their records
        List<DeadLetterRecord> letters = deadLetters(config, 2).stream()
                .sorted(java.util.Comparator.comparingLong(DeadLetterRecord::getOffset)).toList();

        // then
        assertThat(state).isEqualTo(State.SUCCESS);
        assertThat(letters).allSatisfy(letter -> {
            assertThat(letter.getComponent()).isEqualTo("worker");
            assertThat(letter.getTopic()).isEqualTo(tasksTopic);
            assertThat(letter.getKey()).isEqualTo("exec-d");
            assertThat(letter.getReason()).startsWith("Unreadable task record (");
        });
        assertThat(letters).extracting(DeadLetterRecord::getOffset).containsExactly(0L, 1L);
        assertThat(letters.get(0).getPayload()).isEqualTo(ByteBuffer.wrap(garbage));
        assertThat(letters.get(0).getReason()).startsWith("Unreadable task record (17 bytes): ");
        assertThat(letters.get(1).getPayload()).isNull();
        assertThat(letters.get(1).getReason()).startsWith("Unreadable task record (no value (null)): ");
        assertThat(meters.counter("millrace.worker.dead.letters", "group", "default", "reason", "unreadable").count())
                .isEqualTo(2);
        int partition = letters.get(0).getPartition();
        assertThat(committed(config, new TopicPartition(tasksTopic, partition))).isEqualTo(3);
    }

    private static List<DeadLetterRecord> deadLetters(MillraceConfig config, int expected) {
        String topic = Topics.of(config).deadLetters().name();
        var letters = new ArrayList<DeadLetterRecord>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.bootstrapServers()), new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + WorkerTestSupport.TIMEOUT.toNanos();
            while (letters.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> letters.add(Topics.DEAD_LETTER_SERDE.decode(r.value())));
            }
        }
        return letters;
    }

    private static long committed(MillraceConfig config, TopicPartition partition) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(KafkaSettings.groupId(config))
                    .partitionsToOffsetAndMetadata().get();
            return offsets.get(partition).offset();
        }
    }
}
