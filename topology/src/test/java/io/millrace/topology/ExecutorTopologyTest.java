package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.decide.Appliers;
import io.millrace.core.decide.InMemoryExecutionState;
import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.EventMapper;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.TaskRunRecord;
import org.apache.kafka.streams.KeyValue;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.EventRecord;

import io.millrace.serdes.avro.ExecutionPurgedEvent;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.StoredTaskRun;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StateValue;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ExecutorTopologyTest {
    private static final String FLOW = """
            id: two-steps
            namespace: company.team
            inputs:
              - id: name
                type: STRING
            tasks:
              - id: first
                type: return
                format: "hello {{ inputs.name }}"
              - id: second
                type: io.kestra.plugin.core.debug.Return
                format: "{{ outputs.first.value }}!"
            outputs:
              - id: greeting
                type: STRING
                value: "{{ outputs.second.value }}"
            """;
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path stateDir;

    private MillraceConfig config;
    private Topics topics;
    private TopologyTestDriver driver;
    private TestInputTopic<String, CommandRecord> commands;
    private TestInputTopic<String, TaskResultRecord> results;
    private TestOutputTopic<String, WorkerTaskRecord> tasks;
    private TestOutputTopic<String, EventRecord> events;
    private TestOutputTopic<String, byte[]> snapshots;
    private TestOutputTopic<String, DeadLetterRecord> deadLetters;

    @BeforeEach
    void startDriver() throws Exception {
        start("exactly_once_v2");
    }

    private void start(String guarantee) throws Exception {
        config = ConfigLoader.load(Map.of(), Map.of("state-dir", stateDir.toString(), "lease", "PT10S",
                "max-lost-attempts", "2", "retention", "PT1H", "processing-guarantee", guarantee), null);
        topics = Topics.of(config);
        driver = new TopologyTestDriver(ExecutorTopology.build(config, new SimpleMeterRegistry()),
                ExecutorTopology.properties(config), START);
        var string = Serdes.String();
        commands = driver.createInputTopic(topics.commands().name(), string.serializer(), Topics.COMMAND_SERDE.serializer());
        results = driver.createInputTopic(topics.results().name(), string.serializer(), Topics.RESULT_SERDE.serializer());
        tasks = driver.createOutputTopic(topics.tasks("default").name(), string.deserializer(), Topics.TASK_SERDE.deserializer());
        events = driver.createOutputTopic(topics.events().name(), string.deserializer(), Topics.EVENT_SERDE.deserializer());
        snapshots = driver.createOutputTopic(topics.executions().name(), string.deserializer(), Serdes.ByteArray().deserializer());
        deadLetters = driver.createOutputTopic(topics.deadLetters().name(), string.deserializer(),
                Topics.DEAD_LETTER_SERDE.deserializer());
        var flow = new FlowParser().parse(FLOW).withRevision(1);
        driver.createInputTopic(topics.flows().name(), string.serializer(), Topics.FLOW_SERDE.serializer())
                .pipeInput(FlowMapper.key(flow.namespace(), flow.id(), 1), FlowMapper.toRecord(flow, START));
    }

    @AfterEach
    void closeDriver() {
        driver.close();
    }

    @Test
    void shouldKeepOneProduceRequestInFlightUnderExactlyOnceUnlessToldOtherwise() {
        // given
        MillraceConfig told = ConfigLoader.load(Map.of(), Map.of("kafka.producer.max.in.flight.requests.per.connection", "5"), null);
        MillraceConfig atLeastOnce = ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "at_least_once"), null);

        // when
        Properties byDefault = ExecutorTopology.properties(config);
        Properties overridden = ExecutorTopology.properties(told);
        Properties kafkasDefault = ExecutorTopology.properties(atLeastOnce);

        // then
        assertThat(byDefault).containsEntry("producer.max.in.flight.requests.per.connection", 1);
        assertThat(overridden).containsEntry("producer.max.in.flight.requests.per.connection", "5");
        assertThat(kafkasDefault).doesNotContainKey("producer.max.in.flight.requests.per.connection");
    }

    @Test
    void shouldHandAWarmedTaskToAJoiningExecutorWithinAMinuteUnlessToldOtherwise() {
        // given
        MillraceConfig told = ConfigLoader.load(Map.of(), Map.of("kafka.probing.rebalance.interval.ms", "600000"), null);

        // when: as Kafka Streams reads them (it refuses less than a minute)
        var byDefault = new StreamsConfig(ExecutorTopology.properties(config));
        var overridden = new StreamsConfig(ExecutorTopology.properties(told));

        // then
        assertThat(byDefault.getLong(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG)).isEqualTo(60_000L);
        assertThat(overridden.getLong(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG)).isEqualTo(600_000L);
    }

    @Test
    void shouldSendAtOnceUnderEitherGuaranteeUnlessToldOtherwise() {
        // given
        MillraceConfig atLeastOnce = ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "at_least_once"), null);
        MillraceConfig told = ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "at_least_once",
                "kafka.producer.linger.ms", "5"), null);

        // when
        Properties exactlyOnce = ExecutorTopology.properties(config);
        Properties atLeastOnceDefault = ExecutorTopology.properties(atLeastOnce);
        Properties overridden = ExecutorTopology.properties(told);

        // then
        assertThat(exactlyOnce).containsEntry("producer.linger.ms", 0);
        assertThat(atLeastOnceDefault).containsEntry("producer.linger.ms", 0);
        assertThat(overridden).containsEntry("producer.linger.ms", "5");
    }

    @Test
    void shouldRunALinearFlowToSuccessThroughWorkerTasks() {
        // given
        create("e1", Map.of("name", "Ada"));

        // when: the worker answers each dispatched task
        WorkerTaskRecord first = tasks.readValue();
        answer(first, State.SUCCESS, Map.of("value", "hello Ada"));
        WorkerTaskRecord second = tasks.readValue();
        answer(second, State.SUCCESS, Map.of("value", "hello Ada!"));

        // then
        assertThat(first.getTaskId()).isEqualTo("first");
        assertThat(first.getTaskType()).isEqualTo("io.kestra.plugin.core.debug.Return");
        assertThat(Json.readMap(first.getVariablesJson())).containsEntry("inputs", Map.of("name", "Ada"));
        assertThat(Json.readMap(second.getVariablesJson()).get("outputs"))
                .isEqualTo(Map.of("first", Map.of("value", "hello Ada")));
        ExecutionSnapshot last = lastSnapshot();
        assertThat(last.getExecution().getState().name()).isEqualTo("SUCCESS");
        assertThat(Json.readMap(last.getExecution().getOutputsJson())).containsEntry("greeting", "hello Ada!");
        assertThat(last.getTaskRunCount()).as("a small execution's runs are inline").isNull();
        assertThat(last.getExecution().getTaskRuns()).hasSize(2);
        assertThat(last.getTaskOutputs()).hasSize(2);
        assertThat(tasks.isEmpty()).isTrue();
    }

    @Test
    void shouldSendEachStepsEventsInOneRecordInOrder() {
        // given
        create("e11", Map.of("name", "Kai"));

        // when: the three steps of a flow of two tasks
        answer(tasks.readValue(), State.SUCCESS, Map.of("value", "a"));
        answer(tasks.readValue(), State.SUCCESS, Map.of("value", "b"));

        // then
        List<List<Event>> steps = events.readValuesToList().stream().map(EventMapper::fromRecord).toList();
        assertThat(steps).hasSize(3);
        assertThat(steps.getFirst()).first().isInstanceOf(ExecutionCreated.class);
        assertThat(steps.getFirst()).hasSizeGreaterThan(1).last().isInstanceOf(TaskRunAttemptStarted.class);
        assertThat(steps.get(1)).first().isInstanceOf(TaskRunCompleted.class);
        assertThat(steps.get(1)).last().isInstanceOf(TaskRunAttemptStarted.class);
        assertThat(steps.getLast()).last().isInstanceOf(ExecutionCompleted.class);
    }

    @Test
    void shouldRebuildStoredStateByFoldingTheEventsTopic() {
        // given
        create("e2", Map.of("name", "Bob"));
        answer(tasks.readValue(), State.SUCCESS, Map.of("value", "x"));
        answer(tasks.readValue(), State.FAILED, Map.of());

        // when
        var replayed = new InMemoryExecutionState();
        var appliers = new Appliers();
        events.readValuesToList()
                .forEach(e -> EventMapper.fromRecord(e).forEach(event -> appliers.apply(event, replayed)));

        // then
        Execution stored = stored("e2");
        assertThat(replayed.execution()).contains(stored);
        assertThat(stored.state()).isEqualTo(State.FAILED);
        KeyValueStore<String, StoredExecution> executions = driver.getKeyValueStore(Names.EXECUTIONS_STORE);
        String firstRun = stored.taskRuns().getFirst().id();
        assertThat(Json.readMap(executions.get("e2").getOutputs().get(firstRun))).as("a small execution's outputs inline")
                .isEqualTo(replayed.outputs(firstRun));
    }

    @Test
    void shouldStoreAndSendTheRunsOfABigExecutionOneRecordEach() throws Exception {
        // given: a loop of 20 values, 21 task runs, more than an execution keeps inline
        var loop = new FlowParser().parse("""
                id: loop
                namespace: company.team
                tasks:
                  - id: each
                    type: io.kestra.plugin.core.flow.ForEach
                    values: "{{ range(1, 20) }}"
                    concurrencyLimit: 0
                    tasks:
                      - {id: log, type: log, message: "{{ taskrun.value }}"}
                """).withRevision(1);
        driver.createInputTopic(topics.flows().name(), Serdes.String().serializer(), Topics.FLOW_SERDE.serializer())
                .pipeInput(FlowMapper.key(loop.namespace(), loop.id(), 1), FlowMapper.toRecord(loop, START));
        commands.pipeInput("big", CommandMapper.toRecord(new CreateExecution("big", "company.team", "loop", null,
                Map.of(), Map.of(), START)));

        // when
        List<WorkerTaskRecord> dispatched = tasks.readValuesToList();
        dispatched.forEach(task -> answer(task, State.SUCCESS, Map.of("value", "x")));

        // then: each run is a record of its own in the store and on the topic, sent before the execution's snapshot
        assertThat(dispatched).hasSize(20);
        Execution stored = stored("big");
        assertThat(stored.state()).isEqualTo(State.SUCCESS);
        assertThat(stored.taskRuns()).hasSize(21);
        KeyValueStore<String, StoredExecution> executions = driver.getKeyValueStore(Names.EXECUTIONS_STORE);
        assertThat(executions.get("big").getExecution().getTaskRuns()).isEmpty();
        assertThat(executions.get("big").getTaskRunCount()).isEqualTo(21);
        assertThat(executions.get("big").getOutputs()).as("a big execution's outputs apart").isNull();
        KeyValueStore<String, OutputsRecord> outputs = driver.getKeyValueStore(Names.OUTPUTS_STORE);
        try (var apart = outputs.prefixScan("big/", Serdes.String().serializer())) {
            assertThat(apart.hasNext()).isTrue();
        }
        List<KeyValue<String, byte[]>> sent = snapshots.readKeyValuesToList();
        KeyValue<String, byte[]> last = sent.getLast();
        assertThat(last.key).isEqualTo("big");
        ExecutionSnapshot terminal = Topics.SNAPSHOT_SERDE.decode(last.value);
        assertThat(terminal.getExecution().getState()).isEqualTo(StateValue.SUCCESS);
        assertThat(terminal.getTaskRunCount()).isEqualTo(21);
        assertThat(sent.stream().filter(kv -> SnapshotKeys.isRun(kv.key)).map(kv -> kv.key).distinct())
                .hasSize(21).allMatch(key -> key.startsWith("big/"));

        // when: its retention ends
        driver.advanceWallClockTime(Duration.ofHours(1).plusSeconds(1));

        // then: a tombstone for the execution and for each of its runs
        assertThat(snapshots.readKeyValuesToList()).allSatisfy(kv -> assertThat(kv.value).isNull()).hasSize(22);
        assertThat(executions.get("big")).isNull();
        try (var left = outputs.prefixScan("big/", Serdes.String().serializer())) {
            assertThat(left.hasNext()).isFalse();
        }
    }

    @Test
    void shouldPurgeAFinishedExecutionWhenItsRetentionEnds() {
        // given: a finished execution, and another one still running
        create("e9", Map.of("name", "Eve"));
        answer(tasks.readValue(), State.SUCCESS, Map.of("value", "x"));
        answer(tasks.readValue(), State.SUCCESS, Map.of("value", "y"));
        create("e10", Map.of("name", "Fay"));
        KeyValueStore<String, StoredExecution> executions = driver.getKeyValueStore(Names.EXECUTIONS_STORE);
        KeyValueStore<String, OutputsRecord> outputs = driver.getKeyValueStore(Names.OUTPUTS_STORE);
        assertThat(executions.get("e9").getOutputs()).as("its outputs inline").hasSize(2);
        KeyValueStore<String, StoredTaskRun> runs = driver.getKeyValueStore(Names.TASK_RUNS_STORE);
        executionSnapshots();
        events.readValuesToList();

        // when
        driver.advanceWallClockTime(Duration.ofHours(1).plusSeconds(1));

        // then
        assertThat(executions.get("e9")).isNull();
        assertThat(executions.get("e10")).isNotNull();
        try (var left = outputs.prefixScan("e9/", Serdes.String().serializer())) {
            assertThat(left.hasNext()).isFalse();
        }
        try (var left = runs.prefixScan("e9/", Serdes.String().serializer())) {
            assertThat(left.hasNext()).isFalse();
        }
        assertThat(executionSnapshots()).filteredOn(kv -> kv.key.equals("e9")).singleElement()
                .satisfies(tombstone -> assertThat(tombstone.value).isNull());
        assertThat(events.readKeyValuesToList()).filteredOn(kv -> kv.key.equals("e9")).singleElement()
                .satisfies(event -> assertThat(event.value.getPayload()).isInstanceOf(ExecutionPurgedEvent.class));
    }

    @Test
    void shouldRedispatchWhenALeaseExpiresAndFailAfterTheLastLostAttempt() {
        // given
        create("e3", Map.of("name", "Cy"));
        WorkerTaskRecord attempt1 = tasks.readValue();

        // when: no worker answers past the lease, twice
        driver.advanceWallClockTime(Duration.ofSeconds(11));
        WorkerTaskRecord attempt2 = tasks.readValue();
        driver.advanceWallClockTime(Duration.ofSeconds(11));

        // then
        assertThat(attempt1.getAttempt()).isEqualTo(1);
        assertThat(attempt2.getAttempt()).isEqualTo(2);
        assertThat(attempt2.getTaskRunId()).isEqualTo(attempt1.getTaskRunId());
        assertThat(lastSnapshot().getExecution().getState().name()).isEqualTo("FAILED");
    }

    @Test
    void shouldIgnoreAStaleResultOfALostAttempt() {
        // given
        create("e4", Map.of("name", "Di"));
        WorkerTaskRecord attempt1 = tasks.readValue();
        driver.advanceWallClockTime(Duration.ofSeconds(11));
        WorkerTaskRecord attempt2 = tasks.readValue();

        // when: the lost worker answers late, then the new one
        answer(attempt1, State.SUCCESS, Map.of("value", "late"));
        answer(attempt2, State.SUCCESS, Map.of("value", "on time"));

        // then
        WorkerTaskRecord next = tasks.readValue();
        assertThat(next.getTaskId()).isEqualTo("second");
        assertThat(Json.readMap(next.getVariablesJson()).get("outputs"))
                .isEqualTo(Map.of("first", Map.of("value", "on time")));
        assertThat(tasks.isEmpty()).isTrue();
    }

    @Test
    void shouldKeepTheLeaseWhileHeartbeatsCome() {
        // given
        create("e5", Map.of("name", "Ed"));
        WorkerTaskRecord attempt1 = tasks.readValue();

        // when: heartbeats every 6 s for 30 s
        for (int i = 0; i < 5; i++) {
            driver.advanceWallClockTime(Duration.ofSeconds(6));
            answer(attempt1, State.RUNNING, Map.of());
        }

        // then
        assertThat(tasks.isEmpty()).isTrue();
        assertThat(lastSnapshot().getExecution().getState().name()).isEqualTo("RUNNING");
    }

    @Test
    void shouldDeleteTheLeaseTimerOfAnAttemptThatEnded() {
        // given
        create("e11", Map.of("name", "Kit"));
        WorkerTaskRecord first = tasks.readValue();

        // when
        answer(first, State.SUCCESS, Map.of("value", "hello"));

        // then: only the lease of the next task is left, and the ended one never fires
        WorkerTaskRecord second = tasks.readValue();
        KeyValueStore<String, TimerRecord> timers = driver.getKeyValueStore(Names.TIMERS_STORE);
        var left = new ArrayList<TimerRecord>();
        try (var all = timers.all()) {
            all.forEachRemaining(kv -> left.add(kv.value));
        }
        assertThat(left).singleElement().satisfies(timer -> {
            assertThat(timer.getKind()).isEqualTo("LEASE");
            assertThat(timer.getTaskRunId()).isEqualTo(second.getTaskRunId());
        });
    }

    @Test
    void shouldEmitExactlyOneCompletionWhenCommandsAreDuplicated() {
        // given
        create("e6", Map.of("name", "Flo"));
        create("e6", Map.of("name", "Flo"));
        WorkerTaskRecord first = tasks.readValue();

        // when
        answer(first, State.SUCCESS, Map.of("value", "a"));
        answer(first, State.SUCCESS, Map.of("value", "a"));
        WorkerTaskRecord second = tasks.readValue();
        answer(second, State.SUCCESS, Map.of("value", "b"));
        answer(second, State.SUCCESS, Map.of("value", "b"));

        // then
        long completions = events.readValuesToList().stream().flatMap(e -> EventMapper.fromRecord(e).stream())
                .filter(ExecutionCompleted.class::isInstance).count();
        assertThat(completions).isEqualTo(1);
        assertThat(tasks.isEmpty()).isTrue();
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldKillARunningExecution() {
        // given
        create("e7", Map.of("name", "Gus"));
        WorkerTaskRecord first = tasks.readValue();

        // when
        commands.pipeInput("e7", CommandMapper.toRecord(new KillExecution("e7", START)));
        answer(first, State.SUCCESS, Map.of("value", "too late"));

        // then
        assertThat(lastSnapshot().getExecution().getState().name()).isEqualTo("KILLED");
        assertThat(tasks.isEmpty()).isTrue();
    }

    @Test
    void shouldKeepProcessingAfterAnUndecodableRecord() {
        // given
        driver.createInputTopic(topics.commands().name(), Serdes.String().serializer(), Serdes.ByteArray().serializer())
                .pipeInput("garbage", new byte[] {1, 2, 3});

        // when
        create("e8", Map.of("name", "Hal"));

        // then: (the dead letter itself is checked in DeadLetterDeserializationHandlerTest)
        assertThat(tasks.readValue().getExecutionId()).isEqualTo("e8");
    }

    @Test
    @Timeout(60)
    void shouldFailAnExecutionWhoseRunIfGoesPastTheRenderLimitsAndGoOnDeciding() throws Exception {
        // given: a flow whose task has the runIf of the report, 10^10 loop iterations on the stream thread
        var flow = new FlowParser().parse("""
                id: looping
                namespace: company.team
                tasks:
                  - id: t
                    type: log
                    message: m
                    runIf: "{% set l = range(0,99999) %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}true"
                """).withRevision(1);
        driver.createInputTopic(topics.flows().name(), Serdes.String().serializer(), Topics.FLOW_SERDE.serializer())
                .pipeInput(FlowMapper.key(flow.namespace(), flow.id(), 1), FlowMapper.toRecord(flow, START));

        // when
        commands.pipeInput("e11", CommandMapper.toRecord(new CreateExecution("e11", "company.team", "looping", null,
                Map.of(), Map.of(), START)));
        create("e12", Map.of("name", "Eve"));

        // then: that execution fails, naming the limit (the executor's time, or the steps on a fast machine); the next
        // one is decided
        Execution failed = stored("e11");
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.taskRuns().getFirst().error()).containsPattern(
                "exceeds the render limit (expression-max-steps \\(1000000\\)|executor-expression-max-time \\(PT0\\.02S\\))");
        assertThat(tasks.readValue().getExecutionId()).isEqualTo("e12");
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldWaitForAFlowThatIsNotYetStoredThenDeadLetterTheCreate() {
        // given: a create for a flow that never arrives
        commands.pipeInput("e9", CommandMapper.toRecord(new CreateExecution("e9", "company.team", "missing", null,
                Map.of(), Map.of(), START)));
        assertThat(deadLetters.isEmpty()).isTrue();

        // when
        driver.advanceWallClockTime(ExecutorTopology.FLOW_WAIT.plusSeconds(1));

        // then
        DeadLetterRecord letter = deadLetters.readValue();
        assertThat(letter.getKey()).isEqualTo("e9");
        assertThat(letter.getReason()).contains("company.team/missing");
    }

    @Test
    void shouldDeadLetterACreateKilledWhileWaitingForItsFlowAndNeverStartIt() {
        // given: a create for a flow that is not stored yet
        commands.pipeInput("e13", CommandMapper.toRecord(new CreateExecution("e13", "company.team", "missing", null,
                Map.of(), Map.of(), START)));

        // when
        commands.pipeInput("e13", CommandMapper.toRecord(new KillExecution("e13", START)));

        // then: the create is dead-lettered at once, and is not retried once the wait is over
        DeadLetterRecord letter = deadLetters.readValue();
        assertThat(letter.getKey()).isEqualTo("e13");
        assertThat(letter.getReason()).isEqualTo("Killed while waiting for its flow: the execution never started");
        driver.advanceWallClockTime(ExecutorTopology.FLOW_WAIT.plusSeconds(1));
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(snapshots.isEmpty()).isTrue();
    }

    @Test
    void shouldStartAnExecutionOnceItsFlowArrives() throws Exception {
        // given
        commands.pipeInput("e10", CommandMapper.toRecord(new CreateExecution("e10", "company.team", "late", null,
                Map.of(), Map.of(), START)));

        // when
        var flow = new FlowParser().parse(FLOW.replace("two-steps", "late").replace("  - id: name\n    type: STRING\n", ""))
                .withRevision(1);
        driver.createInputTopic(topics.flows().name(), Serdes.String().serializer(), Topics.FLOW_SERDE.serializer())
                .pipeInput(FlowMapper.key(flow.namespace(), flow.id(), 1), FlowMapper.toRecord(flow, START));
        driver.advanceWallClockTime(Duration.ofMillis(200));

        // then
        assertThat(tasks.readValue().getExecutionId()).isEqualTo("e10");
    }

    @Test
    void shouldNameEveryProcessorAndStoreExplicitly() {
        // when
        String description = ExecutorTopology.build(config, new SimpleMeterRegistry()).describe().toString();

        // then: these names are part of the on-disk format (changelog topics, state directories)
        assertThat(description).containsPattern("Processor: Executor\\.decide \\(stores: \\[[^]]*\\]\\)")
                .contains("executor-executions", "executor-outputs", "executor-timers", "executor-deferred",
                "Source: Commands.source (topics: [millrace.commands])",
                "Source: Results.source (topics: [millrace.results])", "Processor: Flows.load (stores: [executor-flows])",
                "Sink: Events.sink (topic: millrace.events)", "Sink: Snapshots.sink (topic: millrace.executions)",
                "Sink: DeadLetters.sink (topic: millrace.dlq)", "Sink: Tasks.sink");
    }

    @Test
    void shouldSendSnapshotAndRunningDispatchAgainForAReplayedResultUnderAtLeastOnce() throws Exception {
        // given: at-least-once; first answered, second dispatched
        driver.close();
        start("at_least_once");
        create("e1", Map.of("name", "Ada"));
        WorkerTaskRecord first = tasks.readValue();
        answer(first, State.SUCCESS, Map.of("value", "hello Ada"));
        WorkerTaskRecord second = tasks.readValue();
        executionSnapshots().stream().map(kv -> kv.value).toList();
        long eventsBefore = events.readValuesToList().size();

        // when: the first result comes again, as after a crash that lost what its step sent
        answer(first, State.SUCCESS, Map.of("value", "hello Ada"));

        // then: the running attempt and the snapshot are sent again, nothing else changes
        List<WorkerTaskRecord> redispatched = tasks.readValuesToList();
        assertThat(redispatched).singleElement().satisfies(t -> {
            assertThat(t.getTaskRunId()).isEqualTo(second.getTaskRunId());
            assertThat(t.getAttempt()).isEqualTo(second.getAttempt());
        });
        assertThat(executionSnapshots().stream().map(kv -> kv.value).toList()).singleElement()
                .satisfies(s -> assertThat(s.getExecution().getState()).isEqualTo(StateValue.RUNNING));
        assertThat(events.readValuesToList()).isEmpty();
        assertThat(eventsBefore).isPositive();

        // when: the same result comes a third time (its re-sent dispatch ran again)
        answer(first, State.SUCCESS, Map.of("value", "hello Ada"));

        // then: its step was sent again once already, so nothing is sent now
        assertThat(tasks.isEmpty()).isTrue();
        assertThat(executionSnapshots()).isEmpty();

        // when: the run ends, and its last result comes twice too
        answer(second, State.SUCCESS, Map.of("value", "hello Ada!"));
        executionSnapshots().stream().map(kv -> kv.value).toList();
        answer(second, State.SUCCESS, Map.of("value", "hello Ada!"));

        // then: the end was decided and sent after the steps were sent again, so nothing is sent now
        assertThat(executionSnapshots()).isEmpty();
        assertThat(tasks.isEmpty()).isTrue();
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldSendTheEndAgainForAReplayedLastResultUnderAtLeastOnce() throws Exception {
        // given: at-least-once; an execution ran to its end
        driver.close();
        start("at_least_once");
        create("e1", Map.of("name", "Ada"));
        answer(tasks.readValue(), State.SUCCESS, Map.of("value", "hello Ada"));
        WorkerTaskRecord second = tasks.readValue();
        answer(second, State.SUCCESS, Map.of("value", "hello Ada!"));
        executionSnapshots().stream().map(kv -> kv.value).toList();

        // when: its last result comes again, as after a crash that lost what the end sent
        answer(second, State.SUCCESS, Map.of("value", "hello Ada!"));

        // then: the terminal snapshot is sent again
        assertThat(executionSnapshots().stream().map(kv -> kv.value).toList()).singleElement()
                .satisfies(s -> assertThat(s.getExecution().getState()).isEqualTo(StateValue.SUCCESS));
        assertThat(tasks.isEmpty()).isTrue();
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldIgnoreAReplayedResultUnderExactlyOnce() {
        // given
        create("e1", Map.of("name", "Ada"));
        WorkerTaskRecord first = tasks.readValue();
        answer(first, State.SUCCESS, Map.of("value", "hello Ada"));
        tasks.readValuesToList();
        executionSnapshots().stream().map(kv -> kv.value).toList();

        // when: duplicates cannot come from a crash here, so nothing is sent again
        answer(first, State.SUCCESS, Map.of("value", "hello Ada"));

        // then
        assertThat(tasks.isEmpty()).isTrue();
        assertThat(snapshots.isEmpty()).isTrue();
    }

    private void create(String id, Map<String, Object> inputs) {
        commands.pipeInput(id, CommandMapper.toRecord(new CreateExecution(id, "company.team", "two-steps", null, inputs,
                Map.of(), START)));
    }

    private void answer(WorkerTaskRecord task, State state, Map<String, Object> outputs) {
        results.pipeInput(task.getExecutionId(), CommandMapper.toRecord(new TaskResult(task.getExecutionId(),
                task.getTaskRunId(), task.getAttempt(), state, outputs, state == State.FAILED ? "boom" : null, "w1", START)));
    }

    /** The executions' own snapshots (tombstones as null), decoded; the task runs' snapshots are read and dropped. */
    private List<KeyValue<String, ExecutionSnapshot>> executionSnapshots() {
        return snapshots.readKeyValuesToList().stream().filter(kv -> !SnapshotKeys.isRun(kv.key))
                .map(kv -> new KeyValue<>(kv.key, kv.value == null ? null : Topics.SNAPSHOT_SERDE.decode(kv.value)))
                .toList();
    }

    /** An execution as the executor stores it: its header and its task runs, apart. */
    private Execution stored(String id) {
        KeyValueStore<String, StoredExecution> executions = driver.getKeyValueStore(Names.EXECUTIONS_STORE);
        KeyValueStore<String, StoredTaskRun> runs = driver.getKeyValueStore(Names.TASK_RUNS_STORE);
        var records = new java.util.ArrayList<TaskRunRecord>();
        try (var it = runs.range(SnapshotKeys.runsFrom(id), SnapshotKeys.runsTo(id))) {
            it.forEachRemaining(kv -> records.add(kv.value.getRun()));
        }
        return ExecutionMapper.fromRecord(executions.get(id).getExecution(), records);
    }

    private ExecutionSnapshot lastSnapshot() {
        List<ExecutionSnapshot> all = executionSnapshots().stream().map(kv -> kv.value).toList();
        assertThat(all).isNotEmpty();
        return all.getLast();
    }
}
