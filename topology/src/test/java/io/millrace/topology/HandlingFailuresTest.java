package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ExecutorLimits;
import io.millrace.config.MillraceConfig;
import io.millrace.core.cache.LruCache;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.decide.Decider;
import io.millrace.core.decide.DeciderSettings;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.StartedOffsets;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.StoredTaskRun;
import io.millrace.serdes.avro.TimerRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A command whose handling threw fails its execution and is dead-lettered, counted; only a JVM that cannot go on stops. */
class HandlingFailuresTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final ExecutorLimits LIMITS = MillraceConfig.defaults().executorLimits();

    private final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Decider decider = new Decider(new DeciderSettings(LEASE, 3, Duration.ofDays(1)), new Expressions());
    private StoreBackedState.Stores stores;
    private HandlingFailures failures;

    @BeforeEach
    void createStores() throws Exception {
        context.setCurrentSystemTimeMs(NOW.toEpochMilli());
        stores = new StoreBackedState.Stores(store(Names.EXECUTIONS_STORE, new AvroSerde<>(StoredExecution.getClassSchema())),
                store(Names.TASK_RUNS_STORE, new AvroSerde<>(StoredTaskRun.getClassSchema())),
                store(Names.OUTPUTS_STORE, new AvroSerde<>(OutputsRecord.getClassSchema())), new LruCache<>(10));
        KeyValueStore<String, TimerRecord> timers = store(Names.TIMERS_STORE, new AvroSerde<>(TimerRecord.getClassSchema()));
        store(Names.DEFERRED_STORE, Topics.COMMAND_SERDE);
        store(Names.ADMISSIONS_STORE, Serdes.ByteArray());
        KeyValueStore<String, FlowRecord> flows = store(Names.FLOWS_STORE, Topics.FLOW_SERDE);
        var flow = new FlowParser().parse("""
                id: f
                namespace: ns
                tasks:
                  - id: a
                    type: log
                    message: hi
                """).withRevision(1);
        flows.put(FlowMapper.key("ns", "f", 1), FlowMapper.toRecord(flow, NOW));
        var metrics = new ExecutorMetrics(registry, "millrace.");
        failures = new HandlingFailures(decider, stores, new Effects(context, timers, LEASE, LIMITS, millis -> { }),
                new AwaitedCommits(context, new EagerCommits(0, 20), metrics), new CountedDeadLetters(context, LIMITS, metrics));
    }

    @Test
    void shouldFailTheExecutionAndDeadLetterTheCommandOnAnUnexpectedError() {
        // given: a running execution
        processor().process(new Record<>("e1", CommandMapper.toRecord(create("e1")), NOW.toEpochMilli()));
        context.resetForwards();
        var result = new TaskResult("e1", "any", 1, State.SUCCESS, Map.of(), null, "w", NOW);

        // when: handling its result threw
        failures.unexpected(result, new IllegalStateException("boom"), CommandMapper.toRecord(result),
                new StoreBackedState("e1", stores), NOW);

        // then
        Execution failed = new StoreBackedState("e1", stores).execution().orElseThrow();
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.error())
                .matches("Internal error; the executor's log has the details under error id [0-9a-z]+");
        assertThat(deadLetters()).singleElement().satisfies(letter -> {
            assertThat(letter.getKey()).isEqualTo("e1");
            assertThat(letter.getReason()).isEqualTo("Failed handling TaskResult: java.lang.IllegalStateException: boom");
        });
        assertThat(internalErrors()).isEqualTo(1);
    }

    @Test
    void shouldDeadLetterACreateThatThrewWithoutAnExecutionToFail() {
        // given
        CreateExecution create = create("e2");

        // when
        failures.unexpected(create, new StackOverflowError(), CommandMapper.toRecord(create),
                new StoreBackedState("e2", stores), NOW);

        // then: a letter, and nothing else
        assertThat(new StoreBackedState("e2", stores).execution()).isEmpty();
        assertThat(context.forwarded()).hasSize(1);
        assertThat(deadLetters()).singleElement()
                .satisfies(letter -> assertThat(letter.getReason()).startsWith("Failed handling CreateExecution: "));
        assertThat(internalErrors()).isEqualTo(1);
    }

    @Test
    void shouldLetAJvmThatCannotGoOnStopBeforeTouchingAnything() {
        // given
        CreateExecution create = create("e3");

        // when / then
        assertThatThrownBy(() -> failures.unexpected(create, new OutOfMemoryError(), CommandMapper.toRecord(create),
                new StoreBackedState("e3", stores), NOW)).isInstanceOf(OutOfMemoryError.class);
        assertThat(context.forwarded()).isEmpty();
        assertThat(internalErrors()).isZero();
    }

    @Test
    void shouldFailTheExecutionOnAStackOverflowButLetAJvmThatCannotGoOnStop() {
        // when / then: a StackOverflowError while deciding is one execution's problem; running out of memory is not
        HandlingFailures.rethrowIfFatal(new StackOverflowError());
        HandlingFailures.rethrowIfFatal(new LinkageError());
        assertThatThrownBy(() -> HandlingFailures.rethrowIfFatal(new OutOfMemoryError()))
                .isInstanceOf(OutOfMemoryError.class);
    }

    private ExecutorProcessor processor() {
        var registry = new SimpleMeterRegistry();
        var processor = new ExecutorProcessor(decider, new FlowLookup(), new ExecutorProcessor.ExecutorSettings(LEASE, Duration.ofMillis(50),
                Duration.ofSeconds(30), false, LIMITS, "millrace."), new EagerCommits(0, 20), new PaceGauges(registry),
                StartedOffsets.kept("millrace.commands"), registry);
        processor.init(context);
        return processor;
    }

    private static CreateExecution create(String executionId) {
        return new CreateExecution(executionId, "ns", "f", null, Map.of(), Map.of(), NOW);
    }

    private List<DeadLetterRecord> deadLetters() {
        return context.forwarded().stream()
                .map(forward -> ((Encoded) forward.record().value()).record())
                .filter(DeadLetterRecord.class::isInstance)
                .map(DeadLetterRecord.class::cast)
                .toList();
    }

    private double internalErrors() {
        return registry.find(DeadLetterMeters.NAME).tags("reason", "internal_error").counters().stream()
                .mapToDouble(counter -> counter.count()).sum();
    }

    private <V> KeyValueStore<String, V> store(String name, Serde<V> serde) {
        KeyValueStore<String, V> store = org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                        org.apache.kafka.streams.state.Stores.inMemoryKeyValueStore(name), Serdes.String(), serde)
                .withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        return store;
    }
}
