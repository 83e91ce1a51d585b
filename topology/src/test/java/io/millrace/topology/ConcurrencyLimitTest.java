package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.concurrency.Slots;
import io.millrace.core.execution.State;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.DeadLetterRecord;
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
 * A flow's concurrency limit through the executor's topology: places up to the limit, the rest QUEUED and started in
 * order as places free, CANCEL ending the extra ones; the slots kept in their store, keyed by the flow.
 */
class ConcurrencyLimitTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final String LIMITED = """
            id: limited
            namespace: company.team
            concurrency:
              limit: 2
              behavior: BEHAVIOR
            tasks:
              - {id: only, type: io.kestra.plugin.core.debug.Return, format: x}
            """;

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, CommandRecord> commands;
    private TestInputTopic<String, TaskResultRecord> results;
    private TestOutputTopic<String, WorkerTaskRecord> tasks;
    private TestOutputTopic<String, DeadLetterRecord> deadLetters;

    private void start(String behavior, String guarantee) throws Exception {
        start(behavior, guarantee, "200");
    }

    private void start(String behavior, String guarantee, String maxRunning) throws Exception {
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("state-dir", stateDir.toString(),
                "processing-guarantee", guarantee, "max-running-executions", maxRunning), null);
        Topics topics = Topics.of(config);
        driver = new TopologyTestDriver(ExecutorTopology.build(config, new SimpleMeterRegistry()),
                ExecutorTopology.properties(config), START);
        var string = Serdes.String();
        commands = driver.createInputTopic(topics.commands().name(), string.serializer(), Topics.COMMAND_SERDE.serializer());
        results = driver.createInputTopic(topics.results().name(), string.serializer(), Topics.RESULT_SERDE.serializer());
        tasks = driver.createOutputTopic(topics.tasks("default").name(), string.deserializer(), Topics.TASK_SERDE.deserializer());
        deadLetters = driver.createOutputTopic(topics.deadLetters().name(), string.deserializer(),
                Topics.DEAD_LETTER_SERDE.deserializer());
        var flows = driver.createInputTopic(topics.flows().name(), string.serializer(), Topics.FLOW_SERDE.serializer());
        for (String yaml : List.of(LIMITED.replace("BEHAVIOR", behavior),
                LIMITED.replace("id: limited", "id: free").replace("concurrency:\n  limit: 2\n  behavior: BEHAVIOR\n", ""))) {
            var flow = new FlowParser().parse(yaml).withRevision(1);
            flows.pipeInput(FlowMapper.key(flow.namespace(), flow.id(), 1), FlowMapper.toRecord(flow, START));
        }
    }

    @AfterEach
    void closeDriver() {
        driver.close();
    }

    @Test
    void shouldRunUpToTheLimitAndStartTheQueuedInOrderAsPlacesFree() throws Exception {
        // given
        start("QUEUE", "exactly_once_v2");

        // when
        createAll("e1", "e2", "e3", "e4");

        // then: two run, two wait QUEUED
        List<WorkerTaskRecord> first = tasks.readValuesToList();
        assertThat(first).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e1", "e2");
        assertThat(state("e3")).isEqualTo(State.QUEUED);
        assertThat(slots()).isEqualTo(new Slots(2, List.of("e1", "e2"), List.of("e3", "e4")));

        // when: a queued execution is killed, and a running one ends
        commands.pipeInput("e3", CommandMapper.toRecord(new KillExecution("e3", START)));
        answer(first.get(1));

        // then: the place goes to the next one still queued
        assertThat(tasks.readValuesToList()).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e4");
        assertThat(state("e3")).isEqualTo(State.KILLED);
        assertThat(slots()).isEqualTo(new Slots(2, List.of("e1", "e4"), List.of()));
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldCancelTheExecutionsPastTheLimitWithCancel() throws Exception {
        // given
        start("CANCEL", "at_least_once");

        // when
        createAll("e1", "e2", "e3");

        // then
        assertThat(tasks.readValuesToList()).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e1", "e2");
        assertThat(state("e3")).isEqualTo(State.CANCELLED);
        assertThat(slots().queued()).isEmpty();
    }

    @Test
    void shouldNotCountQueuedExecutionsAgainstTheBoundOnRunningOnes() throws Exception {
        // given: at most two running executions per stream task
        start("QUEUE", "exactly_once_v2", "2");
        createAll("e1", "e2", "e3", "e4");
        List<WorkerTaskRecord> first = tasks.readValuesToList();
        assertThat(first).extracting(WorkerTaskRecord::getExecutionId).containsExactly("e1", "e2");

        // when: an execution of a flow without a limit comes while two run
        commands.pipeInput("free-1", CommandMapper.toRecord(new CreateExecution("free-1", "company.team", "free", null,
                Map.of(), Map.of(), START)));
        assertThat(tasks.isEmpty()).as("it waits for a place").isTrue();
        answer(first.get(0));

        // then: once one ends it starts, not held back by the two executions still QUEUED
        assertThat(tasks.readValuesToList()).extracting(WorkerTaskRecord::getExecutionId).contains("free-1", "e3");
    }

    private void createAll(String... ids) {
        for (String id : ids) {
            commands.pipeInput(id, CommandMapper.toRecord(new CreateExecution(id, "company.team", "limited", null,
                    Map.of(), Map.of(), START)));
        }
    }

    private void answer(WorkerTaskRecord task) {
        results.pipeInput(task.getExecutionId(), CommandMapper.toRecord(new TaskResult(task.getExecutionId(),
                task.getTaskRunId(), task.getAttempt(), State.SUCCESS, Map.of("value", "x"), null, "w1", START)));
    }

    private State state(String executionId) {
        KeyValueStore<String, StoredExecution> executions = driver.getKeyValueStore(Names.EXECUTIONS_STORE);
        return ExecutionMapper.fromRecord(executions.get(executionId).getExecution().getState());
    }

    private Slots slots() throws Exception {
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(Names.SLOTS_STORE);
        return Json.MAPPER.readValue(store.get("company.team/limited"), Slots.class);
    }
}
