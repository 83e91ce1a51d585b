package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.execution.State;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.EventMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.StateValue;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No decision sends a record over {@code max-record-bytes}, nor more than {@code max-decision-bytes} together. */
class RecordLimitsTest {
    private static final int MAX_RECORD_BYTES = 65_536;
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final String BIG_FLOW_OUTPUTS = """
            id: big-flow-outputs
            namespace: company.team
            tasks:
              - id: make
                type: io.kestra.plugin.core.debug.Return
                format: "x"
            outputs:
              - id: twice
                type: STRING
                value: "{{ outputs.make.value }}{{ outputs.make.value }}"
            """;
    private static final String TWO_BIG_OUTPUTS = """
            id: two-big-outputs
            namespace: company.team
            tasks:
              - id: first
                type: io.kestra.plugin.core.debug.Return
                format: "x"
              - id: second
                type: io.kestra.plugin.core.debug.Return
                format: "y"
            """;
    private static final String LOOP_READER = """
            id: loop-reader
            namespace: company.team
            tasks:
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: [%s]
                tasks:
                  - id: gen
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ taskrun.value }}"
              - id: read
                type: io.kestra.plugin.core.debug.Return
                format: "{{ outputs.gen }}"
            """.formatted(IntStream.rangeClosed(1, 20).mapToObj(Integer::toString).collect(Collectors.joining(", ")));
    private static final String WIDE_START = """
            id: wide-start
            namespace: company.team
            tasks:
              - id: first
                type: io.kestra.plugin.core.debug.Return
                format: "x"
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: [%s]
                concurrencyLimit: 0
                tasks:
                  - id: wide
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ taskrun.value }}%s"
            """.formatted(IntStream.rangeClosed(1, 40).mapToObj(Integer::toString).collect(Collectors.joining(", ")),
            "w".repeat(6_000));

    /** One output read by 10 lanes at once: 10 × 30 KB fits no step of 230 KB. */
    private static final String WIDE_READ = """
            id: wide-read
            namespace: company.team
            tasks:
              - id: first
                type: io.kestra.plugin.core.debug.Return
                format: "x"
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                concurrencyLimit: 0
                tasks:
                  - id: lane
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ outputs.first.value | length }}"
            """;
    /** 20 iterations of 4 KB read by each of 10 lanes at once: 80 KB fits no record of 64 KiB. */
    private static final String LOOP_WIDE_READ = """
            id: loop-wide-read
            namespace: company.team
            tasks:
              - id: gens
                type: io.kestra.plugin.core.flow.ForEach
                values: [%s]
                tasks:
                  - id: gen
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ taskrun.value }}"
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                concurrencyLimit: 0
                tasks:
                  - id: lane
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ outputs.gen | length }}"
            """.formatted(IntStream.rangeClosed(1, 20).mapToObj(Integer::toString).collect(Collectors.joining(", ")));

    /**
     * 17 lanes started in one step, each of a 4 KB value: the step's events, 70 KB, fit no record of 64 KiB, while
     * each event fits, and the step's records together (its events, dispatches and run snapshots, each carrying the
     * values) fit a step of 230 KB.
     */
    private static final String WIDE_VALUES = """
            id: wide-values
            namespace: company.team
            tasks:
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: [%s]
                concurrencyLimit: 0
                tasks:
                  - id: lane
                    type: io.kestra.plugin.core.debug.Return
                    format: "{{ taskrun.value | length }}"
            """.formatted(IntStream.rangeClosed(10, 26).mapToObj(i -> "\"" + i + "v".repeat(4_000) + "\"")
            .collect(Collectors.joining(", ")));

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, CommandRecord> commands;
    private TestInputTopic<String, TaskResultRecord> results;
    private TestOutputTopic<String, WorkerTaskRecord> tasks;
    private TestOutputTopic<String, TaskResultRecord> loopback;
    private TestOutputTopic<String, byte[]> snapshots;
    private TestOutputTopic<String, DeadLetterRecord> deadLetters;
    private TestOutputTopic<String, byte[]> events;

    @BeforeEach
    void startDriver() throws Exception {
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("state-dir", stateDir.toString(),
                "max-record-bytes", Integer.toString(MAX_RECORD_BYTES), "max-decision-bytes", "230000"), null);
        Topics topics = Topics.of(config);
        driver = new TopologyTestDriver(ExecutorTopology.build(config, new SimpleMeterRegistry()),
                ExecutorTopology.properties(config), START);
        var string = Serdes.String();
        commands = driver.createInputTopic(topics.commands().name(), string.serializer(), Topics.COMMAND_SERDE.serializer());
        results = driver.createInputTopic(topics.results().name(), string.serializer(), Topics.RESULT_SERDE.serializer());
        tasks = driver.createOutputTopic(topics.tasks("default").name(), string.deserializer(), Topics.TASK_SERDE.deserializer());
        loopback = driver.createOutputTopic(topics.results().name(), string.deserializer(), Topics.RESULT_SERDE.deserializer());
        snapshots = driver.createOutputTopic(topics.executions().name(), string.deserializer(), Serdes.ByteArray().deserializer());
        events = driver.createOutputTopic(topics.events().name(), string.deserializer(),
                Serdes.ByteArray().deserializer());
        deadLetters = driver.createOutputTopic(topics.deadLetters().name(), string.deserializer(),
                Topics.DEAD_LETTER_SERDE.deserializer());
        var flows = driver.createInputTopic(topics.flows().name(), string.serializer(), Topics.FLOW_SERDE.serializer());
        for (String yaml : List.of(BIG_FLOW_OUTPUTS, TWO_BIG_OUTPUTS, LOOP_READER, WIDE_START, WIDE_READ,
                LOOP_WIDE_READ, WIDE_VALUES)) {
            var flow = new FlowParser().parse(yaml).withRevision(1);
            flows.pipeInput(FlowMapper.key(flow.namespace(), flow.id(), 1), FlowMapper.toRecord(flow, START));
        }
    }

    @AfterEach
    void closeDriver() {
        driver.close();
    }

    @Test
    void shouldFailAnExecutionWhoseFlowOutputsWouldNotFitAndGoOnWithTheNext() {
        // given: a task output of 40 KB that the flow's outputs print twice
        create("e1", "big-flow-outputs");
        answer(tasks.readValue(), Map.of("value", "x".repeat(40_000)));

        // then: the execution failed, naming the limit, and its terminal snapshot fits
        List<KeyValue<String, byte[]>> sent = snapshots.readKeyValuesToList();
        assertThat(sent).allSatisfy(kv -> assertThat(kv.value.length).isLessThanOrEqualTo(MAX_RECORD_BYTES));
        ExecutionSnapshot last = Topics.SNAPSHOT_SERDE.decode(sent.getLast().value);
        assertThat(last.getExecution().getState()).isEqualTo(StateValue.FAILED);
        assertThat(last.getExecution().getError()).isEqualTo("The execution's event ExecutionCompleted would take 80039"
                + " bytes, more than the 65536 a record may (max-record-bytes)");
        assertThat(deadLetters.readValue().getReason()).startsWith("Over a limit while handling TaskResult: The execution's event ExecutionCompleted");

        // when: another execution comes after it
        create("e2", "two-big-outputs");
        answer(tasks.readValue(), Map.of("value", "small"));
        answer(tasks.readValue(), Map.of("value", "small"));

        // then: it runs as usual
        assertThat(lastSnapshot().getExecution().getState()).isEqualTo(StateValue.SUCCESS);
    }

    @Test
    void shouldFailAnExecutionWhoseTaskOutputsTogetherWouldNotFitInOneSnapshot() {
        // given: two task outputs that fit alone, not together in one snapshot
        create("e3", "two-big-outputs");
        answer(tasks.readValue(), Map.of("value", "a".repeat(40_000)));

        // when
        answer(tasks.readValue(), Map.of("value", "b".repeat(40_000)));

        // then: the snapshot that says why keeps what fitted before
        List<KeyValue<String, byte[]>> sent = snapshots.readKeyValuesToList();
        assertThat(sent).allSatisfy(kv -> assertThat(kv.value.length).isLessThanOrEqualTo(MAX_RECORD_BYTES));
        ExecutionSnapshot last = Topics.SNAPSHOT_SERDE.decode(sent.getLast().value);
        assertThat(last.getExecution().getState()).isEqualTo(StateValue.FAILED);
        assertThat(last.getExecution().getError()).startsWith("The execution's snapshot (its inputs, outputs, errors and"
                + " those of its task runs) would take").endsWith("more than the 65536 a record may (max-record-bytes)");
        assertThat(last.getTaskOutputs()).hasSize(1);
    }

    @Test
    void shouldSlimASnapshotByLeavingOutLongValuesAndCuttingLongErrors() {
        // given
        var execution = io.millrace.serdes.ExecutionMapper.toRecord(io.millrace.core.execution.Execution.created("e7",
                "company.team", "f", 1, Map.of("big", "i".repeat(10_000)), Map.of(), null, START));
        execution.setError("e".repeat(10_000));
        var snapshot = new ExecutionSnapshot(execution, Map.of("run", "{\"value\":\"" + "o".repeat(10_000) + "\"}",
                "small", "{\"value\":1}"), START, null);
        var limits = MillraceConfig.defaults().executorLimits();

        // when
        ExecutionSnapshot slim = Slim.snapshot(snapshot, limits);

        // then
        assertThat(slim.getTaskOutputs().get("run")).isEqualTo("{\"truncated\":\"10012 characters left out of this"
                + " snapshot: the execution's records were over max-record-bytes (1000000)\"}");
        assertThat(slim.getTaskOutputs().get("small")).isEqualTo("{\"value\":1}");
        assertThat(slim.getExecution().getInputsJson()).contains("left out of this snapshot");
        assertThat(slim.getExecution().getError()).hasSize(Slim.KEPT_CHARS + "… [truncated: 10000 characters in all]".length()).endsWith("… [truncated: 10000 characters in all]");
        assertThat(snapshot.getExecution().getError()).as("the original is left as it was").hasSize(10_000);
    }

    @Test
    void shouldSendAStepsEventsInSeveralRecordsInOrderWhenTheyDoNotFitOne() {
        // when: one step starts 17 lanes of a 4 KB value each
        create("e10", "wide-values");

        // then: its events went in records that each fit, in the order the step made them
        List<byte[]> sent = events.readValuesToList();
        assertThat(sent).hasSizeGreaterThan(1)
                .allSatisfy(bytes -> assertThat(bytes.length).isLessThanOrEqualTo(MAX_RECORD_BYTES));
        List<Event> step = sent.stream()
                .flatMap(bytes -> EventMapper.fromRecord(Topics.EVENT_SERDE.decode(bytes)).stream()).toList();
        assertThat(step.getFirst()).isInstanceOf(ExecutionCreated.class);
        assertThat(step).filteredOn(TaskRunCreated.class::isInstance).map(e -> ((TaskRunCreated) e).value())
                .filteredOn(java.util.Objects::nonNull).hasSize(17)
                .allSatisfy(value -> assertThat(value).hasSize(4_002))
                .extracting(value -> value.substring(0, 2))
                .containsExactly(IntStream.rangeClosed(10, 26).mapToObj(Integer::toString).toArray(String[]::new));
        assertThat(tasks.readValuesToList()).hasSize(17);
        assertThat(lastSnapshot().getExecution().getState()).isEqualTo(StateValue.RUNNING);
    }

    @Test
    void shouldFailATaskWhoseDispatchWouldNotFitInsteadOfSendingIt() {
        // given: 20 iterations of 4 KB each, read together by the next task
        create("e4", "loop-reader");
        for (int i = 0; i < 20; i++) {
            answer(tasks.readValue(), Map.of("value", "g".repeat(4_000)));
        }

        // when: the failed result the executor sent itself comes back, as it does from the results topic
        assertThat(tasks.isEmpty()).isTrue();
        TaskResultRecord failed = loopback.readValuesToList().getLast();
        results.pipeInput(failed.getExecutionId(), failed);

        // then
        assertThat(failed.getState()).isEqualTo(StateValue.FAILED);
        assertThat(failed.getError()).startsWith("Task 'read': its dispatch").contains("max-record-bytes");
        ExecutionSnapshot last = lastSnapshot();
        assertThat(last.getExecution().getState()).isEqualTo(StateValue.FAILED);
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldFailAnExecutionWhoseStepWouldSendMoreThanTheDecisionLimit() {
        // given: a loop that starts 40 dispatches of 6 KB at once, in one step
        create("e5", "wide-start");

        // when
        answer(tasks.readValue(), Map.of("value", "x"));

        // then
        assertThat(tasks.isEmpty()).isTrue();
        ExecutionSnapshot last = lastSnapshot();
        assertThat(last.getExecution().getState()).isEqualTo(StateValue.FAILED);
        assertThat(last.getExecution().getError()).contains("max-decision-bytes");
    }

    @Test
    void shouldFailAStepWhoseLanesCannotCarryTheOutputsTheyReadBeforeEncodingThem() {
        // given: an output of 30 KB that 10 lanes read
        create("e8", "wide-read");

        // when
        answer(tasks.readValue(), Map.of("value", "o".repeat(30_000)));

        // then: the step failed on the outputs its dispatches would carry, measured before any was encoded
        assertThat(tasks.isEmpty()).isTrue();
        ExecutionSnapshot last = lastSnapshot();
        assertThat(last.getExecution().getState()).isEqualTo(StateValue.FAILED);
        assertThat(last.getExecution().getError()).contains("The outputs the dispatches of one step carry")
                .contains("max-decision-bytes");
    }

    @Test
    void shouldFailEachLaneWhoseOutputsAloneCannotFitARecordInsteadOfTheStep() {
        // given: 20 iterations of 4 KB, which 10 lanes read: no lane's dispatch fits a record
        create("e9", "loop-wide-read");
        for (int i = 0; i < 19; i++) {
            answer(tasks.readValue(), Map.of("value", "g".repeat(4_000)));
        }

        // when
        answer(tasks.readValue(), Map.of("value", "g".repeat(4_000)));

        // then: each lane failed on its own, with the record limit, and not the step
        assertThat(tasks.isEmpty()).isTrue();
        List<TaskResultRecord> failed = loopback.readValuesToList();
        assertThat(failed).hasSize(10).allSatisfy(result -> {
            assertThat(result.getState()).isEqualTo(StateValue.FAILED);
            assertThat(result.getError()).startsWith("Task 'lane': its dispatch").contains("max-record-bytes");
        });
        assertThat(lastSnapshot().getExecution().getError()).contains("Task 'lane': its dispatch")
                .doesNotContain("max-decision-bytes");
    }

    @Test
    void shouldLeaveOutTheDeadLettersPayloadWhenTheLetterWouldNotFit() {
        // given
        var letter = DeadLetters.of("millrace.commands", 0, 7, "e6", "Rejected", new byte[MAX_RECORD_BYTES]);

        // when
        byte[] encoded = DeadLetters.encode(letter, MAX_RECORD_BYTES);

        // then
        DeadLetterRecord decoded = Topics.DEAD_LETTER_SERDE.decode(encoded);
        assertThat(encoded.length).isLessThanOrEqualTo(MAX_RECORD_BYTES);
        assertThat(decoded.getPayload()).isNull();
        assertThat(decoded.getReason()).isEqualTo("Rejected (its payload of " + MAX_RECORD_BYTES
                + " bytes is left out: over max-record-bytes, " + MAX_RECORD_BYTES + ")");
        assertThat(Topics.DEAD_LETTER_SERDE.decode(DeadLetters.encode(DeadLetters.of("t", 0, 1, "k", "small",
                new byte[10]), MAX_RECORD_BYTES)).getPayload()).isEqualTo(ByteBuffer.wrap(new byte[10]));
    }

    private void create(String id, String flowId) {
        commands.pipeInput(id, CommandMapper.toRecord(new CreateExecution(id, "company.team", flowId, null, Map.of(),
                Map.of(), START)));
    }

    private void answer(WorkerTaskRecord task, Map<String, Object> outputs) {
        results.pipeInput(task.getExecutionId(), CommandMapper.toRecord(new TaskResult(task.getExecutionId(),
                task.getTaskRunId(), task.getAttempt(), State.SUCCESS, outputs, null, "w1", START)));
    }

    private ExecutionSnapshot lastSnapshot() {
        List<ExecutionSnapshot> all = snapshots.readKeyValuesToList().stream().filter(kv -> !SnapshotKeys.isRun(kv.key))
                .map(kv -> Topics.SNAPSHOT_SERDE.decode(kv.value)).toList();
        assertThat(all).isNotEmpty();
        return all.getLast();
    }
}
