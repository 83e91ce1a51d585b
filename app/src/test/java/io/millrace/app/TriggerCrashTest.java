package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances of the triggers role share a Kafka trigger's consumer group, one in the engine and one in a process of
 * its own, which is killed with SIGKILL in the middle of a burst of records. The survivor takes its partitions over and
 * reads again what it had not committed: still every record starts exactly one execution, none missing, none twice.
 */
class TriggerCrashTest {
    private static final int RECORDS = 400;

    @TempDir
    Path stateDir;

    @Test
    void shouldStartExactlyOneExecutionPerRecordAcrossAKilledTriggersInstance() throws Exception {
        // given: the engine (with its own triggers instance), a second triggers process, and a flow on a 4-partition topic
        Map<String, String> settings = TestEngines.settings("trigger-crash", stateDir, "port", "0",
                "task-kafka-allow-engine-cluster", "true",
                "kafka.consumer.session.timeout.ms", "6000");
        MillraceConfig config = ConfigLoader.load(Map.of(), settings, null);
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "burst-" + suffix;
        String group = "burst-" + suffix;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        File log = new File(System.getProperty("java.io.tmpdir"), "millrace-trigger-crash.log");
        Files.deleteIfExists(log.toPath());
        Process triggers = null;
        try (Engine engine = Engine.start(config); var outcomes = new TriggerOutcomes(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            StandaloneEndToEndTest.send("POST", api + "/flows", """
                    id: burst
                    namespace: test.crash
                    triggers:
                      - id: records
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: %s
                        properties:
                          bootstrap.servers: %s
                          auto.offset.reset: earliest
                          session.timeout.ms: "6000"
                          max.poll.records: "20"
                        groupId: %s
                    tasks:
                      - id: echo
                        type: io.kestra.plugin.core.debug.Return
                        format: "{{ trigger.value }}"
                    """.formatted(topic, broker(), group), 200);
            triggers = startTriggers(settings, log);
            awaitMembers(group, 2);

            // when: a burst of records, and the second instance killed once a quarter of them have executions
            var producing = Thread.ofVirtual().start(() -> produce(topic));
            outcomes.await(RECORDS / 4, Duration.ofSeconds(120));
            triggers.destroyForcibly().waitFor();
            int beforeKill = outcomes.variables.size();
            producing.join();
            outcomes.await(RECORDS, Duration.ofSeconds(180));
            outcomes.drain(Duration.ofSeconds(3));

            // then: one execution for each record, each ended SUCCESS once
            assertThat(beforeKill).isLessThan(RECORDS);
            var expected = new ArrayList<String>();
            for (int i = 0; i < RECORDS; i++) {
                expected.add("record-" + i);
            }
            assertThat(outcomes.variables.values()).extracting(v -> v.get("value")).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(outcomes.states.values()).containsOnly("SUCCESS");
            assertThat(outcomes.completions).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
        } finally {
            if (triggers != null) {
                triggers.destroyForcibly().waitFor();
            }
        }
    }

    private static void produce(String topic) {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "record-" + i));
                Thread.sleep(10);
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Process startTriggers(Map<String, String> settings, File log) throws Exception {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Millrace.class.getName(), "triggers"));
        settings.forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        // a state directory of its own, as another machine would have
        command.addAll(List.of("--set", "state-dir=" + Path.of(settings.get("state-dir"), "second-triggers")));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    }

    private static void awaitMembers(String group, int members) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (System.nanoTime() < deadline) {
                var description = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                if (description != null && description.members().stream()
                        .filter(m -> !m.assignment().topicPartitions().isEmpty()).count() >= members) {
                    return;
                }
                Thread.sleep(200);
            }
            throw new AssertionError("Expected " + members + " members with partitions in group " + group);
        }
    }

    private static String broker() {
        return EmbeddedKafkaBroker.shared().bootstrapServers();
    }
}
