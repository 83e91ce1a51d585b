package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.ExecutionCompletedEvent;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.worker.Worker;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kills the executor process with SIGKILL while 200 executions are in flight, starts it again and checks that every
 * execution reached exactly one outcome, SUCCESS. Under exactly-once each ends with exactly one ExecutionCompleted
 * event; under at-least-once the terminal snapshot may be sent again after the crash, so the check reads the
 * executions topic and asks for one outcome per execution, none missing.
 */
class ExecutorCrashRecoveryTest {
    private static final int EXECUTIONS = 200;
    private static final Set<String> TERMINAL = Set.of("SUCCESS", "WARNING", "FAILED", "KILLED");
    private static final String FLOW = """
            id: crash
            namespace: test.crash
            tasks:
              - id: first
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  n: "{{ inputs.n }}"
              - id: second
                type: io.kestra.plugin.core.log.Log
                message: "done {{ outputs.first.values.n }}"
            inputs:
              - id: n
                type: INT
            """;

    @TempDir
    Path stateDir;

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2", "at_least_once"})
    void shouldCompleteEveryExecutionOnceAcrossAnExecutorKill(String guarantee) throws Exception {
        // given
        Map<String, String> settings = TestEngines.settings("crash", stateDir, "lease", "PT10S",
                "kafka.consumer.session.timeout.ms", "6000", "processing-guarantee", guarantee);
        MillraceConfig config = ConfigLoader.load(Map.of(), settings, null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, topics.executorTopics(List.of(config.workerGroup())));
        publishFlow(config, topics);
        File log = new File(System.getProperty("java.io.tmpdir"), "millrace-crash-executor-" + guarantee + ".log");
        Files.deleteIfExists(log.toPath());
        Process executor = startExecutor(settings, log);
        try (Worker worker = Worker.start(config); var outcomes = new Outcomes(config, topics)) {
            // when: executions are started over ~4 s, and the executor is killed once some have completed
            var starter = Thread.ofVirtual().start(() -> startExecutions(config, topics));
            outcomes.await(20, Duration.ofSeconds(120));
            executor.destroyForcibly().waitFor();
            int beforeKill = outcomes.endings.size();
            executor = startExecutor(settings, log);
            starter.join();
            outcomes.await(EXECUTIONS, Duration.ofSeconds(180));
            outcomes.drain(Duration.ofSeconds(3));

            // then: none lost, each ended once and in SUCCESS
            assertThat(beforeKill).isLessThan(EXECUTIONS);
            assertThat(outcomes.endings).as(() -> history(config, topics, outcomes.missing())).hasSize(EXECUTIONS);
            assertThat(outcomes.endings.values()).allSatisfy(states -> assertThat(states).containsOnly("SUCCESS"));
            if (config.exactlyOnce()) {
                assertThat(outcomes.endings.values()).allSatisfy(states -> assertThat(states).hasSize(1));
            }
        } finally {
            executor.destroyForcibly().waitFor();
        }
    }

    /** Starts an executor process; both runs of one test write to the same log. */
    private static Process startExecutor(Map<String, String> settings, File log) throws Exception {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Millrace.class.getName(), "executor"));
        settings.forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
                .start();
    }

    private static void publishFlow(MillraceConfig config, Topics topics) throws Exception {
        var flow = new FlowParser().parse(FLOW).withRevision(1);
        try (var producer = new KafkaProducer<>(producerProps(config), new StringSerializer(), topics.flows().valueSerde().serializer())) {
            producer.send(new ProducerRecord<>(topics.flows().name(), FlowMapper.key(flow.namespace(), flow.id(), 1),
                    FlowMapper.toRecord(flow, Instant.now()))).get();
        }
    }

    private static void startExecutions(MillraceConfig config, Topics topics) {
        try (var producer = new KafkaProducer<>(producerProps(config), new StringSerializer(), topics.commands().valueSerde().serializer())) {
            for (int i = 0; i < EXECUTIONS; i++) {
                String id = executionId(i);
                producer.send(new ProducerRecord<>(topics.commands().name(), id, CommandMapper.toRecord(
                        new CreateExecution(id, "test.crash", "crash", null, Map.of("n", i), Map.of(), Instant.now()))));
                Thread.sleep(20);
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Every record of the executor's topics about the given executions, to tell where a lost one stopped. */
    private static String history(MillraceConfig config, Topics topics, Set<String> ids) {
        var lines = new ArrayList<String>(List.of("records of the executions that did not end, " + ids + ":"));
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            for (Topics.Topic<?> topic : topics.executorTopics(List.of(config.workerGroup()))) {
                var partitions = consumer.partitionsFor(topic.name()).stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                var end = consumer.endOffsets(partitions);
                var deserializer = topic.valueSerde().deserializer();
                while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                    for (var record : consumer.poll(Duration.ofMillis(200))) {
                        if (ids.contains(record.key())) {
                            lines.add(record.topic() + "-" + record.partition() + "@" + record.offset() + " "
                                    + Instant.ofEpochMilli(record.timestamp()) + " "
                                    + deserializer.deserialize(record.topic(), record.value()));
                        }
                    }
                }
            }
        }
        return String.join("\n", lines);
    }

    private static String executionId(int i) {
        return "exec-" + i;
    }

    private static Map<String, Object> producerProps(MillraceConfig config) {
        return Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all");
    }

    /**
     * The outcomes seen so far, execution id to terminal states: from ExecutionCompleted events under exactly-once
     * (each must come once), from terminal snapshots under at-least-once (a snapshot may be sent again).
     */
    private static final class Outcomes implements AutoCloseable {
        final Map<String, List<String>> endings = new HashMap<>();
        private final KafkaConsumer<String, Object> consumer;

        @SuppressWarnings("unchecked")
        Outcomes(MillraceConfig config, Topics topics) {
            Topics.Topic<?> topic = config.exactlyOnce() ? topics.events() : topics.executions();
            consumer = new KafkaConsumer<>(Map.<String, Object>of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                    new StringDeserializer(), (Deserializer<Object>) topic.valueSerde().deserializer());
            var partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        Set<String> missing() {
            var ids = new TreeSet<String>();
            for (int i = 0; i < EXECUTIONS; i++) {
                ids.add(executionId(i));
            }
            ids.removeAll(endings.keySet());
            return ids;
        }

        void await(int wanted, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (endings.size() < wanted && System.nanoTime() < deadline) {
                poll();
            }
        }

        void drain(Duration quiet) {
            long deadline = System.nanoTime() + quiet.toNanos();
            while (System.nanoTime() < deadline) {
                poll();
            }
        }

        private void poll() {
            for (var record : consumer.poll(Duration.ofMillis(200))) {
                String state = switch (record.value()) {
                    case EventRecord event when event.getPayload() instanceof ExecutionCompletedEvent completed ->
                            outcome(completed.getState().name(), completed.getError());
                    case ExecutionSnapshot snapshot when TERMINAL.contains(snapshot.getExecution().getState().name()) ->
                            outcome(snapshot.getExecution().getState().name(), snapshot.getExecution().getError());
                    default -> null;
                };
                if (state != null) {
                    endings.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(state);
                }
            }
        }

        /** The terminal state, with the error when there is one, so that a failed assertion says why. */
        private static String outcome(String state, String error) {
            return error == null ? state : state + ": " + error;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

}
