package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The schedules' topology with a clock the test moves: which dates start executions, with which ids and variables. */
class SchedulesTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:03Z");
    private final Topics topics = new Topics("t.");

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, io.millrace.serdes.avro.FlowRecord> flows;
    private TestOutputTopic<String, byte[]> commands;

    private void start() {
        var config = MillraceConfig.defaults().withStateDir(stateDir);
        driver = new TopologyTestDriver(Schedules.topology(topics), Schedules.properties(config), T0);
        flows = driver.createInputTopic(topics.flows().name(), new StringSerializer(), Topics.FLOW_SERDE.serializer());
        commands = driver.createOutputTopic(topics.commands().name(), new StringDeserializer(), new ByteArrayDeserializer());
    }

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    private void deploy(int revision, String recover, boolean disabled) throws Exception {
        var flow = new FlowParser().parse("""
                id: every-ten
                namespace: ns
                disabled: %s
                inputs:
                  - {id: n, type: INT}
                triggers:
                  - id: tick
                    type: io.kestra.plugin.core.trigger.Schedule
                    cron: "*/10 * * * * *"
                    withSeconds: true
                    recoverMissedSchedules: %s
                    inputs: {n: 7}
                    labels: {origin: schedule}
                tasks:
                  - {id: a, type: log, message: "{{ trigger.date }}"}
                """.formatted(disabled, recover)).withRevision(revision);
        flows.pipeInput(FlowMapper.key("ns", "every-ten", revision), FlowMapper.toRecord(flow, T0));
    }

    private List<CreateExecution> sent() {
        return commands.readValuesToList().stream()
                .map(bytes -> (CreateExecution) CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(bytes))).toList();
    }

    private static List<String> dates(List<CreateExecution> creates) {
        return creates.stream().map(c -> (String) c.trigger().variables().get("date")).toList();
    }

    @Test
    void shouldStartOneExecutionForEachDateWithTheTriggersInputsLabelsAndVariables() throws Exception {
        // given
        start();
        deploy(1, "ALL", false);

        // when
        driver.advanceWallClockTime(Duration.ofSeconds(7));
        List<CreateExecution> first = sent();
        driver.advanceWallClockTime(Duration.ofSeconds(10));

        // then
        assertThat(dates(first)).containsExactly("2026-01-01T00:00:10Z");
        assertThat(dates(sent())).containsExactly("2026-01-01T00:00:20Z");
        CreateExecution create = first.getFirst();
        assertThat(create.executionId()).isEqualTo(TriggerIds.of("schedule", "ns", "every-ten", "tick",
                Long.toString(Instant.parse("2026-01-01T00:00:10Z").toEpochMilli())));
        assertThat(create.inputs()).containsEntry("n", 7);
        assertThat(create.labels()).containsEntry("origin", "schedule");
        assertThat(create.trigger().id()).isEqualTo("tick");
        assertThat(create.trigger().type()).isEqualTo("io.kestra.plugin.core.trigger.Schedule");
        assertThat(create.trigger().variables()).containsEntry("next", "2026-01-01T00:00:20Z")
                .containsEntry("previous", "2026-01-01T00:00:00Z");
        assertThat(create.revision()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"ALL, 32", "LAST, 1", "NONE, 1"})
    void shouldRecoverTheDatesMissedWhileNothingRanAsTheTriggerSays(String recover, int expected) throws Exception {
        // given: the schedule was due at 00:00:10, and the next punctuation comes five minutes later
        start();
        deploy(1, recover, false);

        // when
        driver.advanceWallClockTime(Duration.ofMinutes(5).plusSeconds(20));

        // then: ALL starts every missed date, LAST the latest, NONE only the date that has just come
        List<String> dates = dates(sent());
        assertThat(dates).hasSize(expected).last().isEqualTo("2026-01-01T00:05:20Z");
        assertThat(dates).doesNotHaveDuplicates();
    }

    @Test
    void shouldStopWhenTheFlowIsDisabledAndIgnoreAnOlderRevisionReadAgain() throws Exception {
        // given
        start();
        deploy(1, "ALL", false);
        driver.advanceWallClockTime(Duration.ofSeconds(7));
        assertThat(sent()).hasSize(1);

        // when: revision 2 disables the flow; then revision 1 is read again (a replay of the topic)
        deploy(2, "ALL", true);
        deploy(1, "ALL", false);
        driver.advanceWallClockTime(Duration.ofSeconds(30));

        // then
        assertThat(sent()).isEmpty();
    }
}
