package io.millrace.topology;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.execution.State;
import io.millrace.core.command.TaskResult;
import io.millrace.core.decide.Decider;
import io.millrace.core.decide.DeciderSettings;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.StartedOffsets;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StoredTaskRun;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the executor asks of Kafka Streams besides records: a punctuation only when something waits (an idle one must
 * not wake, and commit), a commit at once when an execution ends while eager commits are on, and a fresh start when a
 * revived task initializes the same processor again.
 */
class ExecutorProcessorTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PaceGauges pace = new PaceGauges(registry);
    private final StartedOffsets started = StartedOffsets.kept("millrace.commands");
    private final ExecutorProcessor processor = processor(new EagerCommits(0, 20));
    private KeyValueStore<String, FlowRecord> flows;

    @AfterEach
    void forgetThisThreadsCommits() {
        CommitClock.forgetThisThread();
    }

    @BeforeEach
    void createStores() {
        context.setCurrentSystemTimeMs(NOW.toEpochMilli());
        store(Names.EXECUTIONS_STORE, new AvroSerde<>(StoredExecution.getClassSchema()));
        store(Names.TASK_RUNS_STORE, new AvroSerde<>(StoredTaskRun.getClassSchema()));
        store(Names.OUTPUTS_STORE, new AvroSerde<>(OutputsRecord.getClassSchema()));
        store(Names.TIMERS_STORE, new AvroSerde<>(TimerRecord.getClassSchema()));
        store(Names.DEFERRED_STORE, Topics.COMMAND_SERDE);
        store(Names.ADMISSIONS_STORE, Serdes.ByteArray());
        flows = store(Names.FLOWS_STORE, Topics.FLOW_SERDE);
    }

    @Test
    void shouldScheduleNoPunctuationWhileNothingWaits() {
        // when
        processor.init(context);

        // then
        assertThat(context.scheduledPunctuators()).isEmpty();
    }

    @Test
    void shouldWakeWhenTheLeaseOfADispatchedTaskEnds() throws Exception {
        // given
        postFlow();
        processor.init(context);

        // when
        processor.process(create("e1", Map.of("n", 1)));

        // then
        assertThat(context.scheduledPunctuators()).singleElement().satisfies(wake -> {
            assertThat(wake.getStartTime()).isEqualTo(NOW.plus(LEASE));
            assertThat(wake.cancelled()).isFalse();
        });
    }

    @Test
    void shouldFireATimerThatARevivedTaskRestoredAfterFiringIt() throws Exception {
        // given a lease that fired in a transaction that was then aborted: the stores are back as they were before
        postFlow();
        processor.init(context);
        processor.process(create("e1", Map.of("n", 1)));
        var committed = snapshot(Names.EXECUTIONS_STORE, Names.TASK_RUNS_STORE, Names.OUTPUTS_STORE, Names.TIMERS_STORE);
        context.setCurrentSystemTimeMs(NOW.plus(LEASE).plusSeconds(1).toEpochMilli());
        punctuateLatest();
        assertThat(dispatchedAttempts()).containsExactly(1, 2);
        restore(committed);
        context.resetForwards();

        // when Kafka Streams revives the task: the same processor is initialized again
        processor.init(context);
        punctuateLatest();

        // then the restored lease fired again, and only the new wake-up is left
        assertThat(dispatchedAttempts()).containsExactly(2);
        assertThat(context.scheduledPunctuators()).filteredOn(wake -> !wake.cancelled()).hasSize(1);
    }

    @Test
    void shouldJudgeLeasesThatRanOutWhileStoppedOnlyAfterAGraceSoWaitingResultsComeFirst() throws Exception {
        // given: an attempt dispatched, then the executor stopped past the attempt's lease
        postFlow();
        processor.init(context);
        processor.process(create("e1", Map.of("n", 1)));
        var dispatched = (WorkerTaskRecord) context.forwarded().stream().map(f -> ((Encoded) f.record().value()).record())
                .filter(WorkerTaskRecord.class::isInstance).findFirst().orElseThrow();
        context.resetForwards();
        Instant restart = NOW.plus(LEASE).plusSeconds(5);
        context.setCurrentSystemTimeMs(restart.toEpochMilli());
        ExecutorProcessor restarted = processor(new EagerCommits(0, 20));

        // when: a fresh processor starts; its first punctuation comes before the waiting result is read
        restarted.init(context);
        context.scheduledPunctuators().getLast().getPunctuator().punctuate(context.currentSystemTimeMs());

        // then: the lease is not judged yet
        assertThat(dispatchedAttempts()).isEmpty();

        // when: the result that waited arrives, and the grace passes
        restarted.process(new Record<>("e1", CommandMapper.toRecord(new TaskResult("e1", dispatched.getTaskRunId(), 1,
                State.SUCCESS, Map.of(), null, "w", restart)), restart.toEpochMilli()));
        context.setCurrentSystemTimeMs(restart.plus(DueTimers.leaseGrace(LEASE)).plusSeconds(1).toEpochMilli());
        context.scheduledPunctuators().getLast().getPunctuator().punctuate(context.currentSystemTimeMs());

        // then: the attempt ended by its result, and nothing was dispatched again
        assertThat(dispatchedAttempts()).isEmpty();
        assertThat(DueTimers.leaseGrace(LEASE)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void shouldSendAgainWhatARetryTimerStartedWhenItFiresAgainAfterACrashUnderAtLeastOnce() throws Exception {
        // given: attempt 1 failed and its retry timer was committed; the retry fired, attempt 2 started, and the
        // executor crashed before the next commit: its state reached the changelog, its dispatch and its lease did not
        ExecutorProcessor before = startFlaky();
        before.process(fail(dispatchedRunId(), 1));
        var committed = snapshot(Names.TIMERS_STORE);
        context.setCurrentSystemTimeMs(NOW.plusSeconds(2).toEpochMilli());
        punctuateLatest();
        assertThat(dispatchedAttempts()).containsExactly(1, 2);

        // when: a fresh processor starts; the retry timer is back and fires again
        restartAfterACrash(committed);
        punctuateLatest();

        // then: it found its run moved on, so what its step started is sent again: attempt 2 and its lease
        assertThat(dispatchedAttempts()).containsExactly(2);
        assertThat(timerKinds()).containsExactly("LEASE/2");
    }

    @Test
    void shouldSendAgainWhatALeaseStartedWhenItFiresAgainAfterTheGraceOfAFreshStart() throws Exception {
        // given: attempt 1's lease was committed; it ran out, attempt 2 started, and the executor crashed before the
        // next commit, losing attempt 2's dispatch and lease
        startFlaky();
        var committed = snapshot(Names.TIMERS_STORE);
        context.setCurrentSystemTimeMs(NOW.plus(LEASE).plusSeconds(1).toEpochMilli());
        punctuateLatest();
        assertThat(dispatchedAttempts()).containsExactly(1, 2);

        // when: a fresh processor starts; the lease is back, judged only after the grace of a fresh start (moved)
        restartAfterACrash(committed);
        punctuateLatest();
        assertThat(dispatchedAttempts()).isEmpty();
        context.setCurrentSystemTimeMs(NOW.plus(LEASE).plus(DueTimers.leaseGrace(LEASE)).plusSeconds(2).toEpochMilli());
        punctuateLatest();

        // then: it found its attempt ended, so what its step started is sent again
        assertThat(dispatchedAttempts()).containsExactly(2);
        assertThat(timerKinds()).containsExactly("LEASE/2");
    }

    @Test
    void shouldSendAgainTheLaterStepsOfAReplayedResultUnderAtLeastOnce() throws Exception {
        // given: attempt 1 was committed running; it failed, its retry fired, attempt 2 started, and the executor
        // crashed before the next commit: the failed result is read again, and the retry timer and lease are lost
        ExecutorProcessor before = startFlaky();
        String runId = dispatchedRunId();
        var committed = snapshot(Names.TIMERS_STORE);
        before.process(fail(runId, 1));
        context.setCurrentSystemTimeMs(NOW.plusSeconds(2).toEpochMilli());
        punctuateLatest();
        assertThat(dispatchedAttempts()).containsExactly(1, 2);

        // when: a fresh processor reads the failed result again
        restartAfterACrash(committed).process(fail(runId, 1));

        // then: a duplicate, and what the steps since it started is sent again, the retry's attempt 2 included
        assertThat(dispatchedAttempts()).containsExactly(2);
        assertThat(timerKinds()).containsExactly("LEASE/1", "LEASE/2");
    }

    @Test
    void shouldAskForACommitWhenAnExecutionEndsWhileEagerCommitsAreOn() throws Exception {
        // given
        postFlow();
        ExecutorProcessor eager = processor(new EagerCommits(100, 20));
        eager.init(context);

        // when
        eager.process(create("e1", Map.of())); // the required input is missing: the execution ends FAILED at once

        // then
        assertThat(context.committed()).isTrue();
        assertThat(registry.counter("millrace.executor.eager.commits").count()).isEqualTo(1);
    }

    @Test
    void shouldAskForTheCommitOfAnEndThatCameRightAfterACommitOnceThePaceAllows() throws Exception {
        // when
        endRightAfterACommit();

        // then: asked 4 ms after that commit ended, by a punctuation that asks once
        assertThat(context.committed()).isFalse();
        var ask = context.scheduledPunctuators().getLast();
        assertThat(ask.getStartTime()).isEqualTo(NOW.plusMillis(3));
        ask.getPunctuator().punctuate(NOW.plusMillis(3).toEpochMilli());
        assertThat(context.committed()).isTrue();
        assertThat(ask.cancelled()).isTrue();
        assertThat(registry.counter("millrace.executor.eager.commits").count()).isEqualTo(1);
    }

    @Test
    void shouldNotAskAgainForAnEndThatACommitTookMeanwhile() throws Exception {
        // given: an end waits for the pace
        CommitClock clock = endRightAfterACommit();

        // when: the interval's commit ends before the asked time
        clock.committing(10_000_000);
        clock.committed(12_000_000, NOW.toEpochMilli() + 2);
        context.scheduledPunctuators().getLast().getPunctuator().punctuate(NOW.plusMillis(3).toEpochMilli());

        // then
        assertThat(context.committed()).isFalse();
        assertThat(registry.counter("millrace.executor.eager.commits").count()).isZero();
    }

    @Test
    void shouldNotAskForACommitWhileTheExecutionRuns() throws Exception {
        // given
        postFlow();
        ExecutorProcessor eager = processor(new EagerCommits(100, 20));
        eager.init(context);

        // when
        eager.process(create("e1", Map.of("n", 1))); // dispatches its task

        // then
        assertThat(context.committed()).isFalse();
    }

    @Test
    void shouldNotAskForACommitForAnEndDecidedOnARecordThatWaitedLong() throws Exception {
        // given
        postFlow();
        ExecutorProcessor eager = processor(new EagerCommits(100, 20));
        eager.init(context);
        context.setCurrentSystemTimeMs(NOW.plusSeconds(1).toEpochMilli()); // the create was produced a second ago

        // when
        eager.process(create("e1", Map.of()));

        // then
        assertThat(context.committed()).isFalse();
    }

    @Test
    void shouldNotAskForACommitWhenEagerCommitsAreOff() throws Exception {
        // given
        postFlow();
        processor.init(context);

        // when
        processor.process(create("e1", Map.of()));

        // then
        assertThat(context.committed()).isFalse();
    }

    @Test
    void shouldForwardAStepsTaskFirstAndItsEventsLast() throws Exception {
        // given a flow of two tasks
        post("""
                id: two
                namespace: ns
                tasks:
                  - id: a
                    type: log
                    message: a
                  - id: b
                    type: log
                    message: b
                """);
        processor.init(context);

        // when: the create, then the first task's result, each a step that dispatches a task
        processor.process(create("e1", "two"));
        List<String> created = forwardedSinks();
        String first = dispatchedRunId();
        context.resetForwards();
        processor.process(new Record<>("e1", CommandMapper.toRecord(new TaskResult("e1", first, 1, State.SUCCESS,
                Map.of(), null, "w", NOW)), NOW.toEpochMilli()));

        // then: under exactly-once what goes first may go alone, so the task a worker waits for leads
        assertThat(created).containsExactly(Names.TASKS_SINK, Names.SNAPSHOTS_SINK, Names.EVENTS_SINK);
        assertThat(forwardedSinks()).containsExactly(Names.TASKS_SINK, Names.SNAPSHOTS_SINK, Names.EVENTS_SINK);
        assertThat(dispatchedRunId()).isNotEqualTo(first);
    }

    @Test
    void shouldStartCreatesThatWaitedBeforeARestartAtItsFirstPunctuation() throws Exception {
        // given: two executions run, two creates wait, and the executor stops
        postFlow();
        ExecutorProcessor before = processor(new EagerCommits(0, 20), 2);
        before.init(context);
        for (int offset = 0; offset < 4; offset++) {
            context.setRecordMetadata("millrace.commands", 0, offset);
            before.process(create("e" + (offset + 1), Map.of("n", 1)));
        }
        assertThat(dispatchedExecutions()).containsExactly("e1", "e2");
        assertThat(started.get(0)).as("the oldest create that waits").isEqualTo(2);
        before.close();
        context.resetForwards();

        // when: a fresh processor starts on the same stores
        ExecutorProcessor restarted = processor(new EagerCommits(0, 20), 2);
        restarted.init(context);
        assertThat(dispatchedExecutions()).isEmpty();
        punctuateLatest();

        // then: the creates that waited start, oldest first (the executions that ran before count again once a
        // command of theirs comes)
        assertThat(dispatchedExecutions()).containsExactly("e3", "e4");
        assertThat(registry.get(PaceGauges.WAITING).gauge().value()).isZero();
    }

    /**
     * An execution that ends on a thread whose last commit took 4 ms and ended 1 ms ago, commits allowed half its
     * time; that thread's clock.
     */
    private CommitClock endRightAfterACommit() throws Exception {
        postFlow();
        ExecutorProcessor eager = processor(new EagerCommits(50, 20));
        eager.init(context);
        CommitClock clock = CommitClock.ofThisThread();
        clock.committing(0);
        clock.committed(4_000_000, NOW.toEpochMilli() - 1);
        eager.process(create("e1", Map.of())); // the required input is missing: the execution ends FAILED at once
        return clock;
    }

    private ExecutorProcessor processor(EagerCommits eagerCommits) {
        return processor(eagerCommits, MillraceConfig.defaults().executorLimits().maxRunningExecutions());
    }

    private ExecutorProcessor processor(EagerCommits eagerCommits, int maxRunning) {
        return processor(eagerCommits, maxRunning, false);
    }

    /** A processor as at-least-once runs it: duplicates send their steps again. */
    private ExecutorProcessor atLeastOnce() {
        return processor(new EagerCommits(0, 20), MillraceConfig.defaults().executorLimits().maxRunningExecutions(), true);
    }

    private ExecutorProcessor processor(EagerCommits eagerCommits, int maxRunning, boolean reemitDuplicates) {
        var limits = ConfigLoader.load(Map.of(), Map.of("max-running-executions", Integer.toString(maxRunning)), null)
                .executorLimits();
        return new ExecutorProcessor(new Decider(new DeciderSettings(LEASE, 3, Duration.ofDays(1)), new Expressions()),
                new FlowLookup(),
                new ExecutorProcessor.ExecutorSettings(LEASE, Duration.ofMillis(50), Duration.ofSeconds(30),
                        reemitDuplicates, limits, "millrace."),
                eagerCommits, pace, started, registry);
    }

    /** An at-least-once processor that started an execution of {@link #postFlakyFlow}'s flow. */
    private ExecutorProcessor startFlaky() throws Exception {
        postFlakyFlow();
        ExecutorProcessor processor = atLeastOnce();
        processor.init(context);
        processor.process(create("e1", "flaky"));
        return processor;
    }

    /**
     * A fresh at-least-once processor after a crash: the timers store is cached, so it is back as of the last commit
     * ({@code committed}); the other stores are written through and keep what they were sent.
     */
    private ExecutorProcessor restartAfterACrash(Map<String, List<KeyValue<String, Object>>> committed) {
        restore(committed);
        context.resetForwards();
        ExecutorProcessor restarted = atLeastOnce();
        restarted.init(context);
        return restarted;
    }

    /** A flow of one worker task that is retried a second after it fails. */
    private void postFlakyFlow() throws Exception {
        post("""
                id: flaky
                namespace: ns
                tasks:
                  - id: a
                    type: log
                    message: hi
                    retry: {type: constant, interval: PT1S, maxAttempt: 3}
                """);
    }

    /** Stores a flow of namespace {@code ns} as its revision 1. */
    private void post(String yaml) throws Exception {
        var flow = new FlowParser().parse(yaml).withRevision(1);
        flows.put(FlowMapper.key("ns", flow.id(), 1), FlowMapper.toRecord(flow, NOW));
    }

    private static Record<String, SpecificRecord> create(String executionId, String flowId) {
        return new Record<>(executionId, CommandMapper.toRecord(
                new CreateExecution(executionId, "ns", flowId, null, Map.of(), Map.of(), NOW)), NOW.toEpochMilli());
    }

    private static Record<String, SpecificRecord> fail(String taskRunId, int attempt) {
        return new Record<>("e1", CommandMapper.toRecord(new TaskResult("e1", taskRunId, attempt, State.FAILED, Map.of(),
                "boom", "w", NOW)), NOW.toEpochMilli());
    }

    private String dispatchedRunId() {
        return dispatched().getFirst().getTaskRunId();
    }

    /** The sink of each record the processor forwarded, in order. */
    private List<String> forwardedSinks() {
        return context.forwarded().stream().map(forward -> forward.childName().orElseThrow()).toList();
    }

    /** The stored timers as kind/attempt, in due order. */
    private List<String> timerKinds() {
        return entries(Names.TIMERS_STORE).stream().map(entry -> (TimerRecord) entry.value)
                .map(timer -> timer.getKind() + "/" + timer.getAttempt()).toList();
    }

    private List<String> dispatchedExecutions() {
        return dispatched().stream().map(WorkerTaskRecord::getExecutionId).toList();
    }

    /** The worker tasks the processor sent, in order. */
    private List<WorkerTaskRecord> dispatched() {
        return context.forwarded().stream()
                .map(forward -> ((Encoded) forward.record().value()).record())
                .filter(WorkerTaskRecord.class::isInstance)
                .map(WorkerTaskRecord.class::cast)
                .toList();
    }

    /** A flow of one task with a required input. */
    private void postFlow() throws Exception {
        post("""
                id: f
                namespace: ns
                inputs:
                  - id: n
                    type: INT
                    required: true
                tasks:
                  - id: a
                    type: log
                    message: hi
                """);
    }

    private static Record<String, SpecificRecord> create(String executionId, Map<String, Object> inputs) {
        return new Record<>(executionId, CommandMapper.toRecord(
                new CreateExecution(executionId, "ns", "f", null, inputs, Map.of(), NOW)), NOW.toEpochMilli());
    }

    private void punctuateLatest() {
        context.scheduledPunctuators().getLast().getPunctuator().punctuate(context.currentSystemTimeMs());
    }

    private List<Integer> dispatchedAttempts() {
        return dispatched().stream().map(WorkerTaskRecord::getAttempt).toList();
    }

    private Map<String, List<KeyValue<String, Object>>> snapshot(String... stores) {
        var copy = new HashMap<String, List<KeyValue<String, Object>>>();
        for (String name : stores) {
            copy.put(name, entries(name));
        }
        return copy;
    }

    private void restore(Map<String, List<KeyValue<String, Object>>> snapshot) {
        snapshot.forEach((name, entries) -> {
            KeyValueStore<String, Object> store = context.getStateStore(name);
            entries(name).forEach(entry -> store.delete(entry.key));
            store.putAll(entries);
        });
    }

    private List<KeyValue<String, Object>> entries(String storeName) {
        KeyValueStore<String, Object> store = context.getStateStore(storeName);
        try (KeyValueIterator<String, Object> all = store.all()) {
            var entries = new ArrayList<KeyValue<String, Object>>();
            all.forEachRemaining(entries::add);
            return entries;
        }
    }

    private <V> KeyValueStore<String, V> store(String name, Serde<V> serde) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), serde)
                .withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        return store;
    }
}
