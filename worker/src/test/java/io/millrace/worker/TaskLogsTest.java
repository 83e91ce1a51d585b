package io.millrace.worker;

import static io.millrace.worker.WorkerTestSupport.dispatch;
import static io.millrace.worker.WorkerTestSupport.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.millrace.config.MillraceConfig;
import io.millrace.core.expression.TaskSecrets;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.LogRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.WorkerTestSupport.ResultReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** What a task's log lines become on the logs topic: the gateway's log API serves exactly these. */
class TaskLogsTest {
    private static final long LEASE = 60_000;
    private static final Map<String, Object> FLOW = Map.of("flow", Map.of("namespace", "ns", "id", "f"));

    @Test
    void shouldSendATasksLinesItsFailureAndWhereATimedOutTaskWasKeyedByExecution() {
        // given: a Log of two lines, a Log that keeps WARN and up only, a Fail, and a Sleep past its timeout
        MillraceConfig config = WorkerTestSupport.config(4);
        WorkerTaskRecord log = task("e-log", "say", TaskTypes.LOG,
                Map.of("message", List.of("one", "two {{ flow.id }}"), "level", "WARN"), FLOW, LEASE);
        WorkerTaskRecord quiet = task("e-quiet", "quiet", TaskTypes.LOG, Map.of("message", "hidden", "logLevel", "WARN"),
                FLOW, LEASE);
        WorkerTaskRecord fail = task("e-fail", "boom", TaskTypes.FAIL, Map.of(), FLOW, LEASE);
        WorkerTaskRecord nap = task("e-nap", "nap", TaskTypes.SLEEP, Map.of("duration", "PT100S", "timeout", "PT0.2S"),
                FLOW, LEASE);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config);
                var logs = new LogReader(config)) {
            dispatch(config, log, quiet, fail, nap);
            results.awaitFinal("e-log-say", "e-quiet-quiet", "e-fail-boom", "e-nap-nap");
            List<LogRecord> lines = logs.await(all -> all.stream().filter(l -> l.getExecutionId().equals("e-nap")).count() == 2
                    && all.stream().anyMatch(l -> l.getExecutionId().equals("e-fail")));

            // then
            assertThat(lines).filteredOn(l -> l.getExecutionId().equals("e-log"))
                    .extracting(LogRecord::getMessage, LogRecord::getLevel)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("one", "WARN"),
                            org.assertj.core.groups.Tuple.tuple("two f", "WARN"));
            assertThat(lines).filteredOn(l -> l.getExecutionId().equals("e-log")).allSatisfy(l -> {
                assertThat(l.getNamespace()).isEqualTo("ns");
                assertThat(l.getFlowId()).isEqualTo("f");
                assertThat(l.getTaskId()).isEqualTo("say");
                assertThat(l.getTaskRunId()).isEqualTo("e-log-say");
                assertThat(l.getAttempt()).isEqualTo(1);
            });
            assertThat(lines).noneMatch(l -> l.getExecutionId().equals("e-quiet"));
            assertThat(lines).filteredOn(l -> l.getExecutionId().equals("e-fail"))
                    .extracting(LogRecord::getLevel, LogRecord::getMessage)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("ERROR", "Task failure"));
            List<LogRecord> timedOut = lines.stream().filter(l -> l.getExecutionId().equals("e-nap")).toList();
            assertThat(timedOut).extracting(LogRecord::getLevel).containsExactly("ERROR", "TRACE");
            assertThat(timedOut.getFirst().getMessage()).isEqualTo("Timeout after PT0.2S");
            assertThat(timedOut.getLast().getMessage())
                    .matches("Timeout after PT0.2S; the worker's log has where the task was under error id [0-9a-z]+");
        }
    }

    @Test
    void shouldKeepAtMostTheBoundOfLinesPerAttemptAndCutALongLine() {
        // given (a unit check of the bound: the producer here only records what would be sent)
        var producer = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        var logs = new TaskLogs(producer, "logs");
        var attempt = logs.attempt(task("e", "t", TaskTypes.LOG, Map.of(), Map.of(), LEASE),
                new TaskSecrets(name -> name));

        // when
        attempt.log("INFO", "x".repeat(TaskLogs.MAX_MESSAGE_CHARS + 1));
        IntStream.range(0, TaskLogs.MAX_LINES + 5).forEach(i -> attempt.log("INFO", "line " + i));

        // then
        List<LogRecord> sent = producer.history().stream().map(r -> Topics.LOG_SERDE.decode(r.value())).toList();
        assertThat(sent).hasSize(TaskLogs.MAX_LINES);
        assertThat(sent.getFirst().getMessage()).hasSize(TaskLogs.MAX_MESSAGE_CHARS + " [cut at 65536 characters]".length())
                .endsWith("[cut at 65536 characters]");
        assertThat(sent.getLast().getMessage()).contains("at most " + TaskLogs.MAX_LINES + " are kept");
        assertThat(producer.history()).allSatisfy(r -> assertThat(r.key()).isEqualTo("e"));
    }

    /** Reads the whole logs topic. */
    private static final class LogReader implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final List<LogRecord> lines = new ArrayList<>();

        LogReader(MillraceConfig config) {
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()),
                    new StringDeserializer(), new ByteArrayDeserializer());
            String topic = Topics.of(config).logs().name();
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        List<LogRecord> await(Predicate<List<LogRecord>> done) {
            long deadline = System.nanoTime() + WorkerTestSupport.TIMEOUT.toNanos();
            while (!done.test(lines)) {
                if (System.nanoTime() > deadline) {
                    fail("Expected log lines did not arrive; got " + lines);
                }
                consumer.poll(Duration.ofMillis(50)).forEach(r -> {
                    assertThat(r.key()).isEqualTo(Topics.LOG_SERDE.decode(r.value()).getExecutionId());
                    lines.add(Topics.LOG_SERDE.decode(r.value()));
                });
            }
            return List.copyOf(lines);
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
