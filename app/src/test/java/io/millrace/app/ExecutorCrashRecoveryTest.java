package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.broker.EmbeddedKafkaBroker;
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
import io.millrace.worker.Worker;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills the executor process with SIGKILL while 200 executions are in flight, starts it again and
 * checks on the events topic that every execution completed exactly once.
 */
class ExecutorCrashRecoveryTest {
    private static final int EXECUTIONS = 200;
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

    @Test
    void shouldCompleteEveryExecutionExactlyOnceAcrossAnExecutorKill() throws Exception {
        // given
        String prefix = "crash" + UUID.randomUUID().toString().substring(0, 8) + ".";
        String servers = EmbeddedKafkaBroker.shared().bootstrapServers();
        Map<String, String> settings = Map.of("bootstrap-servers", servers, "topic-prefix", prefix,
                "state-dir", stateDir.toString(), "lease", "PT10S", "kafka.consumer.session.timeout.ms", "6000");
        MillraceConfig config = ConfigLoader.load(Map.of(), settings, null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, topics.executorTopics(List.of(config.workerGroup())));
        publishFlow(config, topics);
        Process executor = startExecutor(settings);
        try (Worker worker = Worker.start(config); var events = eventsConsumer(config, topics)) {
            // when: executions are started over ~4 s, and the executor is killed once some have completed
            var starter = Thread.ofVirtual().start(() -> startExecutions(config, topics));
            Map<String, Integer> completions = new HashMap<>();
            awaitCompletions(events, completions, 20, Duration.ofSeconds(120));
            executor.destroyForcibly().waitFor();
            int beforeKill = completions.size();
            executor = startExecutor(settings);
            starter.join();
            awaitCompletions(events, completions, EXECUTIONS, Duration.ofSeconds(180));
            drain(events, completions, Duration.ofSeconds(3));

            // then
            assertThat(beforeKill).isLessThan(EXECUTIONS);
            assertThat(completions).hasSize(EXECUTIONS);
            assertThat(completions.values()).allMatch(count -> count == 1);
        } finally {
            executor.destroyForcibly().waitFor();
        }
    }

    private static Process startExecutor(Map<String, String> settings) throws Exception {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Millrace.class.getName(), "executor"));
        settings.forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(new File(System.getProperty("java.io.tmpdir"), "millrace-crash-executor.log"))
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
                String id = "exec-" + i;
                producer.send(new ProducerRecord<>(topics.commands().name(), id, CommandMapper.toRecord(
                        new CreateExecution(id, "test.crash", "crash", null, Map.of("n", i), Map.of(), Instant.now()))));
                Thread.sleep(20);
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Map<String, Object> producerProps(MillraceConfig config) {
        return Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all");
    }

    private static KafkaConsumer<String, EventRecord> eventsConsumer(MillraceConfig config, Topics topics) {
        var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), topics.events().valueSerde().deserializer());
        var partitions = consumer.partitionsFor(topics.events().name()).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }

    private static void awaitCompletions(KafkaConsumer<String, EventRecord> events, Map<String, Integer> completions,
            int wanted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (completions.size() < wanted && System.nanoTime() < deadline) {
            count(events, completions, Duration.ofMillis(200));
        }
    }

    private static void drain(KafkaConsumer<String, EventRecord> events, Map<String, Integer> completions, Duration quiet) {
        long deadline = System.nanoTime() + quiet.toNanos();
        while (System.nanoTime() < deadline) {
            count(events, completions, Duration.ofMillis(200));
        }
    }

    private static void count(KafkaConsumer<String, EventRecord> events, Map<String, Integer> completions, Duration poll) {
        for (var record : events.poll(poll)) {
            if (record.value().getPayload() instanceof ExecutionCompletedEvent completed) {
                assertThat(completed.getState().name()).as("state of %s", record.key()).isEqualTo("SUCCESS");
                completions.merge(record.key(), 1, Integer::sum);
            }
        }
    }
}
