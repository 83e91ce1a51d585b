package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.flow.FlowParser;
import io.millrace.executor.Executor;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.worker.Worker;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A schedule every two seconds, its triggers role in a process of its own, killed with SIGKILL and started again a few
 * seconds later: every date from the first to the last started exactly one execution, the dates of the kill included.
 */
class ScheduleCrashTest {
    @TempDir
    Path stateDir;

    @Test
    void shouldStartEachDateOnceAcrossAKillOfTheTriggersRole() throws Exception {
        // given: executor and worker here, the triggers role in a child process, and a flow scheduled every 2 s
        Map<String, String> settings = TestEngines.settings("schedule-crash", stateDir,
                "kafka.consumer.session.timeout.ms", "6000");
        MillraceConfig config = ConfigLoader.load(Map.of(), settings, null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, topics.executorTopics(List.of(config.workerGroup())));
        File log = new File(System.getProperty("java.io.tmpdir"), "millrace-schedule-crash.log");
        Files.deleteIfExists(log.toPath());
        Process triggers = null;
        try (Executor executor = Executor.start(config, new SimpleMeterRegistry()); Worker worker = Worker.start(config);
                var outcomes = new TriggerOutcomes(config)) {
            publish(config, topics);
            triggers = startTriggers(settings, log, "first");

            // when: killed once three dates started, and started again after the next dates came
            outcomes.await(3, Duration.ofSeconds(90));
            triggers.destroyForcibly().waitFor();
            Thread.sleep(5_000);
            triggers = startTriggers(settings, log, "second");
            int seen = outcomes.variables.size();
            outcomes.await(seen + 6, Duration.ofSeconds(120));
            triggers.destroy();
            triggers.waitFor();
            outcomes.settle(Duration.ofSeconds(5), Duration.ofSeconds(60));

            // then: the dates form an unbroken 2 s sequence, each once, each execution ended once
            List<Instant> dates = outcomes.variables.values().stream()
                    .map(v -> Instant.parse((String) v.get("date"))).sorted().toList();
            assertThat(dates).hasSizeGreaterThanOrEqualTo(9).doesNotHaveDuplicates();
            var expected = new ArrayList<Instant>();
            for (Instant date = dates.getFirst(); !date.isAfter(dates.getLast()); date = date.plusSeconds(2)) {
                expected.add(date);
            }
            assertThat(dates).containsExactlyElementsOf(expected);
            assertThat(outcomes.states.values()).containsOnly("SUCCESS");
            assertThat(outcomes.completions).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
        } finally {
            if (triggers != null) {
                triggers.destroyForcibly().waitFor();
            }
        }
    }

    private static void publish(MillraceConfig config, Topics topics) throws Exception {
        var flow = new FlowParser().parse("""
                id: every-two
                namespace: test.crash
                triggers:
                  - id: tick
                    type: io.kestra.plugin.core.trigger.Schedule
                    cron: "*/2 * * * * *"
                    withSeconds: true
                tasks:
                  - id: date
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ trigger.date }}"
                """).withRevision(1);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.bootstrapServers()), new StringSerializer(), topics.flows().valueSerde().serializer())) {
            producer.send(new ProducerRecord<>(topics.flows().name(), FlowMapper.key("test.crash", "every-two", 1),
                    FlowMapper.toRecord(flow, Instant.now()))).get();
        }
    }

    private static Process startTriggers(Map<String, String> settings, File log, String name) throws Exception {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Millrace.class.getName(), "triggers"));
        settings.forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        // each process its own state directory, as two machines would have
        command.addAll(List.of("--set", "state-dir=" + Path.of(settings.get("state-dir"), name)));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    }
}
