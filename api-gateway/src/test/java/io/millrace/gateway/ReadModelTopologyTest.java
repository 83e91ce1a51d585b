package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.core.execution.State;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadModelTopologyTest {
    @TempDir
    Path stateDir;

    private final Topics topics = new Topics("t.");
    private final List<FlowRecord> flowsSeen = new ArrayList<>();
    private final AtomicInteger flowsChanged = new AtomicInteger();
    private final List<String> snapshotsSeen = new ArrayList<>();
    private final List<String> logsSeen = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private TopologyTestDriver driver;

    @BeforeEach
    void startDriver() {
        var config = MillraceConfig.defaults().withStateDir(stateDir);
        driver = new TopologyTestDriver(ReadModelTopology.build(topics, flowsChanged::incrementAndGet, flowsSeen::add,
                (id, snapshot) -> snapshotsSeen.add(id + " " + Topics.SNAPSHOT_SERDE.decode(snapshot).getExecution().getState()),
                logsSeen::add, new Undecodable(registry)), ReadModelTopology.properties(config));
    }

    @AfterEach
    void closeDriver() {
        driver.close();
    }

    @Test
    void shouldKeepTheLatestSnapshotOfEachExecutionAndTellTheListener() {
        // given
        var input = driver.createInputTopic(topics.executions().name(), new StringSerializer(), Topics.SNAPSHOT_SERDE.serializer());
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(ReadModelTopology.EXECUTIONS_STORE);

        // when
        input.pipeInput("ex1", Snapshots.of("ex1", "ns", "f", State.RUNNING));
        input.pipeInput("ex1", Snapshots.of("ex1", "ns", "f", State.SUCCESS));

        // then
        assertThat(Topics.SNAPSHOT_SERDE.decode(store.get("ex1")).getExecution().getState().name()).isEqualTo("SUCCESS");
        assertThat(snapshotsSeen).containsExactly("ex1 RUNNING", "ex1 SUCCESS");

        // when
        input.pipeInput("ex1", (ExecutionSnapshot) null);

        // then
        assertThat(store.get("ex1")).isNull();
        assertThat(snapshotsSeen).hasSize(2);
    }

    @Test
    void shouldSkipAndCountWhatDoesNotDecodeWithoutStopping() {
        // given
        var executions = driver.createInputTopic(topics.executions().name(), new StringSerializer(), new ByteArraySerializer());
        var flows = driver.createInputTopic(topics.flows().name(), new StringSerializer(), new ByteArraySerializer());
        var logs = driver.createInputTopic(topics.logs().name(), new StringSerializer(), new ByteArraySerializer());
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(ReadModelTopology.EXECUTIONS_STORE);
        KeyValueStore<String, byte[]> logStore = driver.getKeyValueStore(ReadModelTopology.LOGS_STORE);
        byte[] garbage = {1, 2, 3};

        // when: garbage of every kind, among good records
        executions.pipeInput("bad", garbage);
        executions.pipeInput("ex2/00000000", garbage);
        executions.pipeInput("ex2", Topics.SNAPSHOT_SERDE.encode(Snapshots.of("ex2", "ns", "f", State.SUCCESS)));
        flows.pipeInput("ns/f@00000001", garbage);
        logs.pipeInput("ex2", garbage);
        logs.pipeInput("ex2", Topics.LOG_SERDE.encode(line("ex2", "fine")));

        // then: the good ones are read, the bad ones left out and counted by store
        assertThat(store.get("bad")).isNull();
        assertThat(store.get("ex2/00000000")).isNull();
        assertThat(snapshotsSeen).containsExactly("ex2 SUCCESS");
        assertThat(lines(logStore, "ex2")).containsExactly("fine");
        assertThat(flowsSeen).isEmpty();
        for (String kind : List.of("executions", "runs", "flows", "logs")) {
            assertThat(registry.get("millrace.gateway.undecodable").tag("store", kind).counter().count())
                    .as(kind).isEqualTo(1.0);
        }
    }

    @Test
    void shouldKeepEveryFlowRevisionUnderItsKey() {
        // given
        var input = driver.createInputTopic(topics.flows().name(), new StringSerializer(), Topics.FLOW_SERDE.serializer());
        KeyValueStore<String, FlowRecord> store = driver.getKeyValueStore(ReadModelTopology.FLOWS_STORE);

        // when
        input.pipeInput("ns/f@00000001", new FlowRecord("ns", "f", 1, "a", Instant.EPOCH, false));
        input.pipeInput("ns/f@00000002", new FlowRecord("ns", "f", 2, "b", Instant.EPOCH, false));

        // then
        assertThat(store.get("ns/f@00000001").getSource()).isEqualTo("a");
        assertThat(store.get("ns/f@00000002").getSource()).isEqualTo("b");
        assertThat(flowsSeen).extracting(FlowRecord::getRevision).containsExactly(1, 2);
        assertThat(flowsChanged).hasValue(2);
    }

    @Test
    void shouldTellOfAFlowRevisionDeletedByATombstone() {
        // given
        var input = driver.createInputTopic(topics.flows().name(), new StringSerializer(), Topics.FLOW_SERDE.serializer());
        input.pipeInput("ns/f@00000001", new FlowRecord("ns", "f", 1, "a", Instant.EPOCH, false));

        // when
        input.pipeInput("ns/f@00000001", null);

        // then: the latest revision a reader may keep has changed
        KeyValueStore<String, FlowRecord> store = driver.getKeyValueStore(ReadModelTopology.FLOWS_STORE);
        assertThat(store.get("ns/f@00000001")).isNull();
        assertThat(flowsChanged).hasValue(2);
    }

    @Test
    void shouldKeepEachExecutionsLogLinesInTheirOrderUntilTheExecutionIsPurged() {
        // given
        var logs = driver.createInputTopic(topics.logs().name(), new StringSerializer(), Topics.LOG_SERDE.serializer());
        var executions = driver.createInputTopic(topics.executions().name(), new StringSerializer(),
                Topics.SNAPSHOT_SERDE.serializer());
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(ReadModelTopology.LOGS_STORE);

        // when
        executions.pipeInput("ex1", Snapshots.of("ex1", "ns", "f", State.SUCCESS));
        for (String line : List.of("b", "a", "c")) {
            logs.pipeInput("ex1", line("ex1", line));
        }
        logs.pipeInput("ex10", line("ex10", "other"));

        // then: under the execution id, in the order sent, apart from an execution whose id extends this one
        assertThat(lines(store, "ex1")).containsExactly("b", "a", "c");
        assertThat(lines(store, "ex10")).containsExactly("other");
        assertThat(logsSeen).as("the keys told to the log followers").hasSize(4)
                .allSatisfy(key -> assertThat(store.get(key)).isNotNull())
                .extracting(io.millrace.serdes.SnapshotKeys::executionId).containsExactly("ex1", "ex1", "ex1", "ex10");

        // when: the execution is purged (a tombstone for a run leaves the logs alone)
        executions.pipeInput("ex1/00000000", (ExecutionSnapshot) null);
        assertThat(lines(store, "ex1")).hasSize(3);
        executions.pipeInput("ex1", (ExecutionSnapshot) null);

        // then
        assertThat(lines(store, "ex1")).isEmpty();
        assertThat(lines(store, "ex10")).containsExactly("other");
    }

    private static LogRecord line(String executionId, String message) {
        return new LogRecord(executionId, "ns", "f", "t", executionId + "-t", 1, Instant.EPOCH, "INFO", null, message);
    }

    private static List<String> lines(KeyValueStore<String, byte[]> store, String executionId) {
        var messages = new ArrayList<String>();
        try (var it = store.range(ReadModelTopology.logsFrom(executionId), ReadModelTopology.logsTo(executionId))) {
            it.forEachRemaining(kv -> messages.add(Topics.LOG_SERDE.decode(kv.value).getMessage()));
        }
        return messages;
    }
}
