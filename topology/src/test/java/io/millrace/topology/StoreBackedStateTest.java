package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.cache.LruCache;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.StoredTaskRun;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Under at-least-once a crash keeps the executor stores' writes up to some point and loses the rest: the changelog
 * keeps the records the producer sent, in the order they were written. Whatever the point, inside a decision's writes
 * or not, the execution read back must be as one decision or the next left it, never a mix; and a decision made on a
 * rolled-back execution must not leave newer runs behind for a later read.
 */
class StoreBackedStateTest {
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    /** One store write, as its changelog would keep it: null value for a delete. */
    private record Write(String store, String key, Object value) {
    }

    private final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    private final List<Write> journal = new ArrayList<>();

    @ParameterizedTest(name = "{0} runs before the write")
    @ValueSource(ints = {20, 16})
    void shouldReadAsOneDecisionOrTheNextWhereverACrashCutsItsWrites(int runsBefore) {
        // given: an execution stored with runsBefore runs (apart, or inline when 16), then a decision that changes two
        // runs and adds two more (so 16 outgrows the inline form)
        var stores = stores("a");
        Execution first = execution(runsBefore);
        write(stores, state -> state.putExecution(first));
        List<TaskRun> before = List.copyOf(first.copy().taskRuns());
        int committed = journal.size();
        write(stores, state -> {
            Execution e = state.execution().orElseThrow();
            end(e, 3);
            end(e, 5);
            e.runs().add(TaskRun.created("r" + runsBefore, "t", null, null, null, AT));
            e.runs().add(TaskRun.created("r" + (runsBefore + 1), "t", null, null, null, AT));
            state.putExecution(e);
        });
        List<TaskRun> after = List.copyOf(read(stores).taskRuns());
        List<Write> decision = List.copyOf(journal.subList(committed, journal.size()));

        for (int kept = 0; kept <= decision.size(); kept++) {
            // when: a crash keeps the first writes of the decision only, and a fresh executor reads the execution
            var restored = stores("cut" + kept);
            replay(restored, journal.subList(0, committed));
            replay(restored, decision.subList(0, kept));
            Execution read = read(restored);

            // then
            assertThat(read.taskRuns()).as("runs after %d of %d writes", kept, decision.size())
                    .isEqualTo(kept == decision.size() ? after : before);
        }
    }

    @ParameterizedTest(name = "{0} runs before the write")
    @ValueSource(ints = {20, 17})
    void shouldNotLeaveARunNewerThanItsExecutionAfterADecisionOnARolledBackOne(int runsBefore) {
        // given: a decision that changed run 3 lost its execution's record in a crash
        var stores = stores("a");
        write(stores, state -> state.putExecution(execution(runsBefore)));
        TaskRun stored3 = read(stores).taskRuns().get(3);
        write(stores, state -> {
            Execution e = state.execution().orElseThrow();
            end(e, 3);
            state.putExecution(e);
        });
        var restored = stores("cut");
        replay(restored, journal.subList(0, journal.size() - 1));

        // when: the command is decided again, differently (it ends run 4, not 3), and then the execution is read again
        write(restored, state -> {
            Execution e = state.execution().orElseThrow();
            end(e, 4);
            state.putExecution(e);
        });
        Execution read = read(restored);

        // then: run 3 is as it was before the lost decision, whose write of it is older than the record now
        assertThat(read.taskRuns().get(3)).isEqualTo(stored3);
        assertThat(read.taskRuns().get(4).state()).isEqualTo(State.SUCCESS);
    }

    @Test
    void shouldKeepASmallExecutionsOutputsInItsOwnRecord() {
        // given: a new execution of two runs, then a decision that puts the first run's outputs
        var stores = stores("a");
        write(stores, state -> state.putExecution(execution(2)));
        int created = journal.size();

        // when
        write(stores, state -> {
            Execution e = state.execution().orElseThrow();
            end(e, 0);
            state.putExecution(e);
            state.putOutputs("r0", Map.of("value", "x"));
        });

        // then: one write, the execution's record, which holds the outputs; a fresh read finds them there
        assertThat(journal.subList(created, journal.size())).extracting(Write::store)
                .containsExactly(Names.EXECUTIONS_STORE);
        assertThat(stores.executions().get("e").getOutputs()).isEqualTo(Map.of("r0", "{\"value\":\"x\"}"));
        assertThat(new StoreBackedState("e", stores).outputs("r0")).isEqualTo(Map.of("value", "x"));
        assertThat(new StoreBackedState("e", stores).outputs("r1")).isEmpty();
    }

    /** What makes an inline execution's outputs leave its record. */
    enum Outgrown { OUTPUTS, RUNS }

    @ParameterizedTest(name = "it outgrows the inline form by its {0}")
    @EnumSource(Outgrown.class)
    void shouldReadOutputsAsOneDecisionOrTheNextWhereverACrashCutsTheirMoveToTheOutputsStore(Outgrown outgrown) {
        // given: an execution of 16 runs with the first run's outputs inline, then a decision that puts the second
        // run's outputs and, with them, outgrows the inline form: its outputs go to the outputs store
        var stores = stores("a");
        write(stores, state -> {
            state.putExecution(execution(16));
            state.putOutputs("r0", Map.of("value", "x"));
        });
        int committed = journal.size();
        String big = "y".repeat(StoreBackedState.INLINE_OUTPUTS_CHARS);
        write(stores, state -> {
            Execution e = state.execution().orElseThrow();
            end(e, 1);
            if (outgrown == Outgrown.RUNS) {
                e.runs().add(TaskRun.created("r16", "t", null, null, null, AT));
            }
            state.putExecution(e);
            state.putOutputs("r1", Map.of("value", outgrown == Outgrown.OUTPUTS ? big : "y"));
        });
        List<Write> decision = List.copyOf(journal.subList(committed, journal.size()));
        assertThat(stores.executions().get("e").getOutputs()).as("none left inline").isNull();
        assertThat(decision).extracting(Write::key).contains("e/r0", "e/r1");
        Map<String, Object> after = Map.of("value", outgrown == Outgrown.OUTPUTS ? big : "y");

        for (int kept = 0; kept <= decision.size(); kept++) {
            // when: a crash keeps the first writes of the decision only, and a fresh executor reads the execution
            var restored = stores("cut" + kept);
            replay(restored, journal.subList(0, committed));
            replay(restored, decision.subList(0, kept));
            var read = new StoreBackedState("e", restored);
            boolean whole = kept == decision.size();

            // then: the first run's outputs in either place, the second's only with the decision that put them
            assertThat(read.execution().orElseThrow().taskRuns().get(1).state()).as("after %d writes", kept)
                    .isEqualTo(whole ? State.SUCCESS : State.CREATED);
            assertThat(read.outputs("r0")).isEqualTo(Map.of("value", "x"));
            assertThat(read.outputs("r1")).as("after %d writes", kept).isEqualTo(whole ? after : Map.of());
        }

        // and then: a later decision keeps them in the outputs store, and a purge deletes them there
        write(stores, state -> state.putOutputs("r2", Map.of("value", "z")));
        assertThat(stores.outputs().get(StoreBackedState.outputsKey("e", "r2"))).isNotNull();
        write(stores, StoreBackedState::removeExecution);
        assertThat(List.of("r0", "r1", "r2")).allSatisfy(run ->
                assertThat(stores.outputs().get(StoreBackedState.outputsKey("e", run))).isNull());
    }

    @Test
    void shouldReadAndPurgeTheOutputsOfAnExecutionStoredBeforeTheyWereInline() {
        // given: an execution whose record keeps no outputs and whose outputs are in the outputs store
        var stores = stores("a");
        write(stores, state -> state.putExecution(execution(2)));
        StoredExecution stored = stores.executions().get("e");
        assertThat(stored.getOutputs()).isNotNull();
        stored.setOutputs(null);
        stores.executions().put("e", stored);
        stores.outputs().put(StoreBackedState.outputsKey("e", "r0"), new OutputsRecord("{\"value\":\"x\"}"));

        // when: a decision puts the next run's outputs
        write(stores, state -> state.putOutputs("r1", Map.of("value", "y")));

        // then: both are read from the outputs store, and the record still keeps none
        assertThat(new StoreBackedState("e", stores).outputs("r0")).isEqualTo(Map.of("value", "x"));
        assertThat(stores.outputs().get(StoreBackedState.outputsKey("e", "r1")).getJson()).isEqualTo("{\"value\":\"y\"}");
        assertThat(stores.executions().get("e").getOutputs()).isNull();

        // when: it is purged
        write(stores, StoreBackedState::removeExecution);

        // then
        assertThat(stores.outputs().get(StoreBackedState.outputsKey("e", "r0"))).isNull();
        assertThat(stores.outputs().get(StoreBackedState.outputsKey("e", "r1"))).isNull();
        assertThat(stores.executions().get("e")).isNull();
    }

    /** A new execution whose runs were all added in the decision that created it. */
    private static Execution execution(int runs) {
        var e = Execution.created("e", "ns", "f", 1, Map.of(), Map.of(), null, AT);
        IntStream.range(0, runs).forEach(i -> e.runs().add(TaskRun.created("r" + i, "t", null, null, null, AT)));
        return e;
    }

    private static void end(Execution execution, int position) {
        String id = execution.taskRuns().get(position).id();
        execution.runs().update(id, run -> run.transition(State.SUCCESS, AT.plusSeconds(1)));
    }

    /** One decision: what it does to a state read from the stores (not from memory), then its writes. */
    private static void write(StoreBackedState.Stores stores, Consumer<StoreBackedState> decide) {
        var state = new StoreBackedState("e", stores);
        decide.accept(state);
        state.flush();
        stores.cache().remove("e");
    }

    private static Execution read(StoreBackedState.Stores stores) {
        return new StoreBackedState("e", stores).execution().orElseThrow().copy();
    }

    private static void replay(StoreBackedState.Stores stores, List<Write> writes) {
        for (Write w : writes) {
            KeyValueStore<String, Object> store = erase(switch (w.store()) {
                case Names.EXECUTIONS_STORE -> stores.executions();
                case Names.TASK_RUNS_STORE -> stores.runs();
                default -> stores.outputs();
            });
            if (w.value() == null) {
                store.delete(w.key());
            } else {
                store.put(w.key(), w.value());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static KeyValueStore<String, Object> erase(KeyValueStore<String, ?> store) {
        return (KeyValueStore<String, Object>) store;
    }

    /** Fresh stores whose writes go to the journal (a stand-in for their changelogs, in one order). */
    private StoreBackedState.Stores stores(String prefix) {
        return new StoreBackedState.Stores(
                journaled(prefix, Names.EXECUTIONS_STORE, new AvroSerde<>(StoredExecution.getClassSchema())),
                journaled(prefix, Names.TASK_RUNS_STORE, new AvroSerde<>(StoredTaskRun.getClassSchema())),
                journaled(prefix, Names.OUTPUTS_STORE, new AvroSerde<>(OutputsRecord.getClassSchema())),
                new LruCache<>(10));
    }

    @SuppressWarnings("unchecked")
    private <V> KeyValueStore<String, V> journaled(String prefix, String name, Serde<V> serde) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(prefix + name),
                Serdes.String(), serde).withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        boolean journaling = prefix.equals("a");
        return (KeyValueStore<String, V>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {KeyValueStore.class}, (proxy, method, args) -> {
                    if (journaling && method.getName().equals("put")) {
                        journal.add(new Write(name, (String) args[0], args[1]));
                    } else if (journaling && method.getName().equals("delete")) {
                        journal.add(new Write(name, (String) args[0], null));
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
