package io.millrace.worker;

import static io.millrace.worker.WorkerTestSupport.dispatch;
import static io.millrace.worker.WorkerTestSupport.finalResult;
import static io.millrace.worker.WorkerTestSupport.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;


import com.sun.net.httpserver.HttpServer;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.execution.State;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.WorkerTestSupport.ResultReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class WorkerTest {
    private static final long LONG_LEASE = 60_000;

    @Test
    void shouldProduceASuccessResultWithTheRenderedOutput() {
        // given
        MillraceConfig config = WorkerTestSupport.config(4);
        WorkerTaskRecord hello = task("exec-1", "hello", TaskTypes.RETURN, Map.of("format", "Hello {{ inputs.name }}"),
                Map.of("inputs", Map.of("name", "Millrace")), LONG_LEASE);
        hello.setAttempt(3);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, hello);
            TaskResult result = finalResult(results.awaitFinal("exec-1-hello"), "exec-1-hello");

            // then
            assertThat(result.state()).isEqualTo(State.SUCCESS);
            assertThat(result.outputs()).containsExactly(Map.entry("value", "Hello Millrace"));
            assertThat(result.executionId()).isEqualTo("exec-1");
            assertThat(result.attempt()).isEqualTo(3);
            assertThat(result.error()).isNull();
            assertThat(result.workerId()).isEqualTo(worker.workerId());
        }
    }

    @Test
    void shouldFailTasksThatReachWhatTheWorkerDoesNotAllow() throws Exception {
        // given: a server on this machine, which a worker role refuses, and a produce to the worker's own cluster
        MillraceConfig config = WorkerTestSupport.config(4);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        var calls = new AtomicInteger();
        server.createContext("/", exchange -> {
            calls.incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
        String uri = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
        WorkerTaskRecord request = task("exec-r", "call", TaskTypes.HTTP_REQUEST, Map.of("uri", uri), Map.of(), LONG_LEASE);
        WorkerTaskRecord produce = task("exec-k", "emit", TaskTypes.KAFKA_PRODUCE, Map.of(
                "properties", Map.of("bootstrap.servers", config.bootstrapServers()), "topic", "anything",
                "from", Map.of("value", "v")), Map.of(), LONG_LEASE);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, request, produce);
            List<TaskResult> all = results.awaitFinal("exec-r-call", "exec-k-emit");

            // then
            assertThat(finalResult(all, "exec-r-call").error()).isEqualTo("Task 'call': GET " + uri + " refused: the"
                    + " target 127.0.0.1 is not allowed: it is this machine (loopback or one of its addresses), which"
                    + " tasks may reach only in standalone; the setting task-http-allow allows it"
                    + " (e.g. --set task-http-allow=127.0.0.1/32)");
            assertThat(finalResult(all, "exec-k-emit").error()).isEqualTo("Task 'emit': property"
                    + " 'properties.bootstrap.servers' is refused: '" + config.bootstrapServers() + "' is a broker of the"
                    + " engine's own Kafka cluster, which a flow may reach only if the operator sets"
                    + " task-kafka-allow-engine-cluster=true");
            assertThat(calls).hasValue(0);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void shouldProduceFailedResultsForAnUnknownTypeAndAFailingExpression() {
        // given
        MillraceConfig config = WorkerTestSupport.config(4);
        WorkerTaskRecord unknown = task("exec-2", "mystery", "io.example.NoSuchTask", Map.of(), Map.of(), LONG_LEASE);
        WorkerTaskRecord broken = task("exec-3", "broken", TaskTypes.RETURN, Map.of("format", "{{ inputs.missing }}"),
                Map.of("inputs", Map.of()), LONG_LEASE);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, unknown, broken);
            List<TaskResult> all = results.awaitFinal("exec-2-mystery", "exec-3-broken");

            // then
            TaskResult unknownResult = finalResult(all, "exec-2-mystery");
            assertThat(unknownResult.state()).isEqualTo(State.FAILED);
            assertThat(unknownResult.error()).contains("Task 'mystery'", "unknown task type 'io.example.NoSuchTask'");
            TaskResult brokenResult = finalResult(all, "exec-3-broken");
            assertThat(brokenResult.state()).isEqualTo(State.FAILED);
            assertThat(brokenResult.error()).contains("Task 'broken'", "format", "missing");
            assertThat(brokenResult.outputs()).isEmpty();
        }
    }

    @Test
    void shouldRunAKafkaProduceTaskWhoseRecordsAPlainConsumerReads() throws Exception {
        // given: a worker that lets flows write to its own cluster (this test has no other)
        MillraceConfig config = WorkerTestSupport.config(4, Map.of("task-kafka-allow-engine-cluster", "true"));
        String topic = "produced-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        WorkerTaskRecord produce = task("exec-p", "emit", "kafka-produce", Map.of(
                "properties", Map.of("bootstrap.servers", config.bootstrapServers()),
                "topic", topic,
                "valueSerializer", "JSON",
                "from", List.of(
                        Map.of("key", "{{ inputs.name }}", "value", Map.of("n", 1), "headers", Map.of("via", "millrace")),
                        Map.of("key", "second", "value", List.of("a", "b")))),
                Map.of("inputs", Map.of("name", "Millrace")), LONG_LEASE);

        // when
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        TaskResult result;
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, produce);
            result = finalResult(results.awaitFinal("exec-p-emit"), "exec-p-emit");
        }
        try (var consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + WorkerTestSupport.TIMEOUT.toNanos();
            while (read.size() < 2 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(read::add);
            }
        }

        // then
        assertThat(result.state()).isEqualTo(State.SUCCESS);
        assertThat(result.outputs()).containsExactly(Map.entry("messagesCount", 2));
        assertThat(read).extracting(ConsumerRecord::key, ConsumerRecord::value)
                .containsExactly(tuple("Millrace", "{\"n\":1}"), tuple("second", "[\"a\",\"b\"]"));
        assertThat(new String(read.getFirst().headers().lastHeader("via").value(), StandardCharsets.UTF_8)).isEqualTo("millrace");
    }

    @Test
    void shouldHeartbeatWhileATaskRunsLongerThanAThirdOfItsLease() {
        // given
        MillraceConfig config = WorkerTestSupport.config(4);
        WorkerTaskRecord sleep = task("exec-4", "nap", TaskTypes.SLEEP, Map.of("duration", "PT1S"), Map.of(), 600);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, sleep);
            List<State> states = results.awaitFinal("exec-4-nap").stream()
                    .filter(r -> r.taskRunId().equals("exec-4-nap")).map(TaskResult::state).toList();

            // then: heartbeats every 200 ms, all of them before the final result
            assertThat(states).contains(State.RUNNING).endsWith(State.SUCCESS).containsOnlyOnce(State.SUCCESS);
        }
    }

    @Test
    void shouldFailATaskAtItsTimeoutAndFreeItsSlot() {
        // given: one slot; a nap of 100 s with a timeout (as the conformance corpus's timeout-sleep flow), then a task
        MillraceConfig config = WorkerTestSupport.config(1);
        WorkerTaskRecord nap = task("exec-t1", "nap", TaskTypes.SLEEP, Map.of("duration", "PT100S", "timeout", "PT0.5S"),
                Map.of(), 600);
        WorkerTaskRecord next = task("exec-t2", "next", TaskTypes.RETURN, Map.of("format", "ran"), Map.of(), LONG_LEASE);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, nap, next);
            List<TaskResult> all = results.awaitFinal("exec-t1-nap", "exec-t2-next");

            // then: heartbeats until the deadline, one FAILED result, and the slot went to the next task
            List<TaskResult> naps = all.stream().filter(r -> r.taskRunId().equals("exec-t1-nap")).toList();
            assertThat(naps).extracting(TaskResult::state).contains(State.RUNNING).endsWith(State.FAILED)
                    .containsOnlyOnce(State.FAILED);
            assertThat(naps.getLast().error()).isEqualTo("Task 'nap': Timeout after PT0.5S");
            assertThat(finalResult(all, "exec-t2-next").state()).isEqualTo(State.SUCCESS);
        }
    }

    @Test
    void shouldStopTheTasksOfAKilledExecutionWithinASecondAndFreeTheirSlots() {
        // given: one slot, an hour's nap of one execution (its heartbeats, every 200 ms, say it runs), then a task of
        // another waiting for the slot
        MillraceConfig config = WorkerTestSupport.config(1);
        WorkerTaskRecord nap = task("exec-k1", "nap", TaskTypes.SLEEP, Map.of("duration", "PT1H"), Map.of(), 600);
        WorkerTaskRecord next = task("exec-k2", "next", TaskTypes.RETURN, Map.of("format", "ran"), Map.of(), LONG_LEASE);

        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, nap);
            results.await(all -> all.stream().anyMatch(r -> r.taskRunId().equals("exec-k1-nap")));
            dispatch(config, next);

            // when: the executor's kill of the execution comes (while the other task waits for the one slot)
            long killedAt = System.nanoTime();
            try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    config.bootstrapServers()), new StringSerializer(), Topics.COMMAND_SERDE.serializer())) {
                producer.send(new ProducerRecord<>(Topics.of(config).kills().name(), "exec-k1",
                        CommandMapper.toRecord(new KillExecution("exec-k1", Instant.now()))));
            }
            List<TaskResult> all = results.awaitFinal("exec-k1-nap", "exec-k2-next");

            // then: the nap stopped at once, and the slot went to the other execution's task
            assertThat(System.nanoTime() - killedAt).as("nanos from the kill to both final results")
                    .isLessThan(Duration.ofSeconds(1).toNanos());
            assertThat(finalResult(all, "exec-k1-nap").error()).isEqualTo("Task 'nap': stopped, its execution was killed");
            assertThat(finalResult(all, "exec-k2-next").state()).isEqualTo(State.SUCCESS);
        }
    }

    @Test
    void shouldLetATaskFinishWithinItsTimeoutAndRefuseABadTimeout() {
        // given
        MillraceConfig config = WorkerTestSupport.config(4);
        WorkerTaskRecord quick = task("exec-t3", "quick", TaskTypes.SLEEP, Map.of("duration", "PT0.1S", "timeout", "PT5S"),
                Map.of(), LONG_LEASE);
        WorkerTaskRecord bad = task("exec-t4", "bad", TaskTypes.RETURN, Map.of("format", "x", "timeout", "5s"),
                Map.of(), LONG_LEASE);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, quick, bad);
            List<TaskResult> all = results.awaitFinal("exec-t3-quick", "exec-t4-bad");

            // then
            assertThat(finalResult(all, "exec-t3-quick").state()).isEqualTo(State.SUCCESS);
            assertThat(finalResult(all, "exec-t4-bad").error())
                    .isEqualTo("Task 'bad': property 'timeout' is not an ISO-8601 duration such as PT5M: '5s'");
        }
    }

    @Test
    void shouldRunTasksConcurrentlyUpToTheConcurrency() {
        // given
        int n = 4;
        MillraceConfig config = WorkerTestSupport.config(n);
        WorkerTaskRecord[] sleeps = IntStream.range(0, n).mapToObj(i -> task("exec-c" + i, "nap", TaskTypes.SLEEP,
                Map.of("duration", "PT3S"), Map.of(), LONG_LEASE)).toArray(WorkerTaskRecord[]::new);
        String[] ids = IntStream.range(0, n).mapToObj(i -> "exec-c" + i + "-nap").toArray(String[]::new);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, sleeps);
            List<TaskResult> all = results.awaitFinal(ids);

            // then: each slept at least 3 s before its end, so ends less than 3 s apart mean all slept at once
            List<Instant> ends = List.of(ids).stream().map(id -> finalResult(all, id))
                    .peek(r -> assertThat(r.state()).isEqualTo(State.SUCCESS)).map(TaskResult::at).sorted().toList();
            assertThat(ends.getLast()).isBefore(ends.getFirst().plusSeconds(3));
        }
    }

    @Test
    void shouldRunNoMoreTasksAtOnceThanTheConcurrency() {
        // given: 4 naps of 300 ms, 2 at a time
        MillraceConfig config = WorkerTestSupport.config(2);
        WorkerTaskRecord[] sleeps = IntStream.range(0, 4).mapToObj(i -> task("exec-b" + i, "nap", TaskTypes.SLEEP,
                Map.of("duration", "PT0.3S"), Map.of(), LONG_LEASE)).toArray(WorkerTaskRecord[]::new);
        String[] ids = IntStream.range(0, 4).mapToObj(i -> "exec-b" + i + "-nap").toArray(String[]::new);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, sleeps);
            List<TaskResult> all = results.awaitFinal(ids);

            // then: a third nap can only start once a first one has ended, so the last ends >= 300 ms after the first
            List<Instant> ends = List.of(ids).stream().map(id -> finalResult(all, id))
                    .peek(r -> assertThat(r.state()).isEqualTo(State.SUCCESS)).map(TaskResult::at).sorted().toList();
            assertThat(ends.getLast()).isAfterOrEqualTo(ends.getFirst().plusMillis(300));

            // and: each result says when the worker received, started and ended it, the nap between the last two
            for (String id : ids) {
                TaskResult result = finalResult(all, id);
                WorkerTimes times = result.worker();
                assertThat(times).as("the worker's times of %s", id).isNotNull();
                assertThat(times.received()).isBeforeOrEqualTo(times.started());
                assertThat(Duration.between(times.started(), times.ended())).isGreaterThanOrEqualTo(Duration.ofMillis(300));
                assertThat(result.at()).isEqualTo(times.ended());
            }
        }
    }

    @Test
    void shouldRerunAnInterruptedTaskButNotAFinishedOneAfterACleanRestart() {
        // given: one finished task, then one interrupted by close(), in the same partition (same execution)
        MillraceConfig config = WorkerTestSupport.config(4);
        WorkerTaskRecord quick = task("exec-5", "quick", TaskTypes.RETURN, Map.of("format", "done"), Map.of(), LONG_LEASE);
        WorkerTaskRecord slow = task("exec-5", "slow", TaskTypes.SLEEP, Map.of("duration", "PT2S"), Map.of(), 300);
        try (var results = new ResultReader(withTopics(config))) {
            try (Worker first = Worker.start(config)) {
                dispatch(config, quick, slow);
                results.await(all -> all.stream().anyMatch(r -> r.taskRunId().equals("exec-5-slow")
                        && r.state() == State.RUNNING));
            }

            // when
            List<TaskResult> all;
            String secondId;
            try (Worker second = Worker.start(config)) {
                secondId = second.workerId();
                all = results.awaitFinal("exec-5-quick", "exec-5-slow");
            }

            // then
            assertThat(all).filteredOn(r -> r.taskRunId().equals("exec-5-quick")).hasSize(1);
            TaskResult slowResult = finalResult(all, "exec-5-slow");
            assertThat(slowResult.state()).isEqualTo(State.SUCCESS);
            assertThat(slowResult.workerId()).isEqualTo(secondId);
        }
    }

    /** Creates the topics (as a worker start does) so the reader can outlive the first worker. */
    private static MillraceConfig withTopics(MillraceConfig config) {
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.tasks(config.workerGroup()), topics.results()));
        return config;
    }
}
