package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.execution.State;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.StartedOffsets;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Creates wait while a stream task runs {@code max-running-executions}, and start in the order read as others end. (A
 * driver deletes its state when it closes, so a restart on the same state is in {@link ExecutorProcessorTest}.)
 */
class PacingTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final String FLOW = """
            id: one-step
            namespace: company.team
            tasks:
              - id: only
                type: io.kestra.plugin.core.debug.Return
                format: "x"
            """;

    @TempDir
    Path stateDir;

    private SimpleMeterRegistry registry;
    private StartedOffsets started;
    private TopologyTestDriver driver;
    private TestInputTopic<String, CommandRecord> commands;
    private TestInputTopic<String, TaskResultRecord> results;
    private TestOutputTopic<String, WorkerTaskRecord> tasks;
    private TestOutputTopic<String, DeadLetterRecord> deadLetters;
    private TestInputTopic<String, FlowRecord> flows;

    private void start(String maxRunning, String guarantee) throws Exception {
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("state-dir", stateDir.toString(),
                "max-running-executions", maxRunning, "processing-guarantee", guarantee), null);
        Topics topics = Topics.of(config);
        registry = new SimpleMeterRegistry();
        started = StartedOffsets.kept(topics.commands().name());
        driver = new TopologyTestDriver(ExecutorTopology.build(config, registry, started),
                ExecutorTopology.properties(config), START);
        var string = Serdes.String();
        commands = driver.createInputTopic(topics.commands().name(), string.serializer(), Topics.COMMAND_SERDE.serializer());
        results = driver.createInputTopic(topics.results().name(), string.serializer(), Topics.RESULT_SERDE.serializer());
        tasks = driver.createOutputTopic(topics.tasks("default").name(), string.deserializer(), Topics.TASK_SERDE.deserializer());
        deadLetters = driver.createOutputTopic(topics.deadLetters().name(), string.deserializer(),
                Topics.DEAD_LETTER_SERDE.deserializer());
        var flow = new FlowParser().parse(FLOW).withRevision(1);
        flows = driver.createInputTopic(topics.flows().name(), string.serializer(), Topics.FLOW_SERDE.serializer());
        flows.pipeInput(FlowMapper.key(flow.namespace(), flow.id(), 1), FlowMapper.toRecord(flow, START));
    }

    @AfterEach
    void closeDriver() {
        driver.close();
    }

    @Test
    void shouldStartWaitingCreatesInTheOrderReadAsRunningExecutionsEnd() throws Exception {
        // given
        start("2", "exactly_once_v2");

        // when
        createAll("e1", "e2", "e3", "e4", "e5");

        // then: two run, three wait
        List<WorkerTaskRecord> first = tasks.readValuesToList();
        assertThat(first).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e1", "e2");
        assertThat(waiting()).isEqualTo(3);
        assertThat(running()).isEqualTo(2);
        assertThat(started.get(0)).as("the offset of e3's create, the oldest that waits").isEqualTo(2);

        // when: each end lets the oldest waiting create start
        answer(first.get(1));
        WorkerTaskRecord third = tasks.readValue();
        answer(first.get(0));
        WorkerTaskRecord fourth = tasks.readValue();

        // then
        assertThat(List.of(third.getExecutionId(), fourth.getExecutionId())).containsExactly("e3", "e4");
        assertThat(tasks.isEmpty()).isTrue();
        assertThat(waiting()).isEqualTo(1);
        assertThat(running()).isEqualTo(2);

        // when
        answer(third);

        // then
        assertThat(tasks.readValue().getExecutionId()).isEqualTo("e5");
        assertThat(waiting()).isZero();
        assertThat(started.get(0)).as("nothing waits").isEqualTo(StartedOffsets.NONE);
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldDeadLetterAWaitingCreateThatIsKilledAndNeverStartIt() throws Exception {
        // given
        start("2", "exactly_once_v2");
        createAll("e1", "e2", "e3", "e4");
        List<WorkerTaskRecord> first = tasks.readValuesToList();

        // when
        commands.pipeInput("e3", CommandMapper.toRecord(new KillExecution("e3", START)));
        answer(first.get(0));
        answer(first.get(1));

        // then: e4 started in its place; e3 never will
        assertThat(tasks.readValuesToList()).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e4");
        DeadLetterRecord letter = deadLetters.readValue();
        assertThat(letter.getKey()).isEqualTo("e3");
        assertThat(letter.getReason()).startsWith("Killed while waiting to start");
        assertThat(letter.getOffset()).as("where the create was read").isEqualTo(2);
        assertThat(Topics.COMMAND_SERDE.decode(letter.getPayload().array()).getExecutionId()).isEqualTo("e3");
        assertThat(waiting()).isZero();
        KeyValueStore<String, StoredExecution> executions = driver.getKeyValueStore(Names.EXECUTIONS_STORE);
        assertThat(executions.get("e3")).isNull();
        assertThat(registry.get(DeadLetterMeters.NAME).tags("reason", "killed_waiting_to_start", "topic", "commands")
                .counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldStartEveryCreateAtOnceWithoutABound() throws Exception {
        // given
        start("0", "exactly_once_v2");

        // when
        createAll("e1", "e2", "e3", "e4", "e5");

        // then
        assertThat(tasks.readValuesToList()).hasSize(5);
        assertThat(waiting()).isZero();
        assertThat(running()).isEqualTo(5);
    }

    @Test
    void shouldStartACreateReadTwiceOnceAndFindTheSecondADuplicate() throws Exception {
        // given: e3 waits, and is read again from another offset (sent twice)
        start("2", "exactly_once_v2");
        createAll("e1", "e2", "e3");
        createAll("e3");
        List<WorkerTaskRecord> first = tasks.readValuesToList();
        assertThat(waiting()).isEqualTo(2);

        // when
        answer(first.get(0));
        answer(first.get(1));

        // then: it started once; the second create was a duplicate, as it would have been without waiting
        assertThat(tasks.readValuesToList()).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e3");
        assertThat(waiting()).isZero();
        assertThat(registry.get("millrace.executor.rejections").tag("kind", "duplicate").counter().count()).isEqualTo(1);
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldStartACreateReadAfterAKillOfItsExecution() throws Exception {
        // given: a kill of e3 comes before its create, while creates wait
        start("2", "exactly_once_v2");
        createAll("e1", "e2", "e4");
        commands.pipeInput("e3", CommandMapper.toRecord(new KillExecution("e3", START)));
        createAll("e3");
        List<WorkerTaskRecord> first = tasks.readValuesToList();

        // when
        answer(first.get(0));
        answer(first.get(1));

        // then: the kill concerned no create read before it
        assertThat(tasks.readValuesToList()).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e4", "e3");
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldStartASubflowsChildAtOnceWhenItsParentTakesTheLastPlace() throws Exception {
        // given: one place, and a parent that waits for a child
        start("1", "exactly_once_v2");
        var parent = new FlowParser().parse("""
                id: parent
                namespace: company.team
                tasks:
                  - {id: call, type: io.kestra.plugin.core.flow.Subflow, namespace: company.team, flowId: one-step}
                """).withRevision(1);
        flows.pipeInput(FlowMapper.key(parent.namespace(), parent.id(), 1), FlowMapper.toRecord(parent, START));

        // when: the parent takes the place; its child's create comes back to the executor
        commands.pipeInput("p1", CommandMapper.toRecord(new CreateExecution("p1", "company.team", "parent", null,
                Map.of(), Map.of(), START)));

        // then: the child runs, though no place is free (waiting for one, it would wait for ever on its parent)
        assertThat(tasks.readValuesToList()).singleElement().satisfies(task ->
                assertThat(task.getTaskId()).isEqualTo("only"));
        assertThat(waiting()).isZero();

        // and when: another parent comes while both run
        commands.pipeInput("p2", CommandMapper.toRecord(new CreateExecution("p2", "company.team", "parent", null,
                Map.of(), Map.of(), START)));

        // then: it waits, as any create
        assertThat(waiting()).isEqualTo(1);
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    private void createAll(String... ids) {
        for (String id : ids) {
            commands.pipeInput(id, CommandMapper.toRecord(new CreateExecution(id, "company.team", "one-step", null,
                    Map.of(), Map.of(), START)));
        }
    }

    private void answer(WorkerTaskRecord task) {
        results.pipeInput(task.getExecutionId(), CommandMapper.toRecord(new TaskResult(task.getExecutionId(),
                task.getTaskRunId(), task.getAttempt(), State.SUCCESS, Map.of("value", "x"), null, "w1", START)));
    }

    private double waiting() {
        return registry.get(PaceGauges.WAITING).gauge().value();
    }

    private double running() {
        return registry.get(PaceGauges.RUNNING).gauge().value();
    }
}
