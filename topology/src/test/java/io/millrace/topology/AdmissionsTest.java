package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.CreateExecution;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.avro.CommandRecord;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdmissionsTest {
    private KeyValueStore<String, byte[]> store;

    @BeforeEach
    void createStore() {
        var context = new MockProcessorContext<String, Object>();
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(Names.ADMISSIONS_STORE), Serdes.String(),
                Serdes.ByteArray()).withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
    }

    @Test
    void shouldTakeCreatesInTheOrderOfTheirOffsets() {
        // given
        var admissions = new Admissions(store);
        admissions.park(16, create("b"));
        admissions.park(3, create("a"));
        admissions.park(300, create("c"));

        // when
        var first = admissions.take(2);
        var rest = admissions.take(5);
        assertThat(count()).as("taken, not yet handled").isEqualTo(3);
        admissions.done(first);
        admissions.done(rest);

        // then
        assertThat(first).extracting(Admissions.Waiting::executionId).containsExactly("a", "b");
        assertThat(first).extracting(Admissions.Waiting::offset).containsExactly(3L, 16L);
        assertThat(rest).extracting(Admissions.Waiting::executionId).containsExactly("c");
        assertThat(rest.getFirst().create().getExecutionId()).isEqualTo("c");
        assertThat(admissions.isEmpty()).isTrue();
        assertThat(count()).isZero();
    }

    @Test
    void shouldMarkACreateKilledOnlyByAKillReadAfterIt() {
        // given: b read at 2, killed at 5, read again at 7
        var admissions = new Admissions(store);
        admissions.park(1, create("a"));
        admissions.park(2, create("b"));
        admissions.killed("b", 5);
        admissions.park(7, create("b"));

        // when
        var taken = admissions.take(5);
        admissions.done(taken);

        // then
        assertThat(taken).extracting(Admissions.Waiting::killed).containsExactly(false, true, false);
        assertThat(count()).as("nothing waits: the kill is forgotten").isZero();
    }

    @Test
    void shouldCountWhatWaitsWhenMadeAgainOverTheSameStore() {
        // given
        var before = new Admissions(store);
        before.park(7, create("a"));
        before.park(8, create("b"));
        before.done(before.take(1));

        // when
        var after = new Admissions(store);

        // then
        assertThat(after.size()).isEqualTo(1);
        assertThat(after.take(5)).extracting(Admissions.Waiting::executionId).containsExactly("b");
    }

    @Test
    void shouldFindACreateTakenButNotHandledWaitingAgainAfterACrash() {
        // given: a was taken, and the executor crashed while handling it
        var before = new Admissions(store);
        before.park(7, create("a"));
        before.park(8, create("b"));
        before.take(1);

        // when
        var after = new Admissions(store);

        // then: it starts again (a duplicate of a start that got through, if it did)
        assertThat(after.size()).isEqualTo(2);
        assertThat(after.take(5)).extracting(Admissions.Waiting::executionId).containsExactly("a", "b");
    }

    @Test
    void shouldScanTheStoreOncePerReadAheadWhenExecutionsEndOneByOne() {
        // given: a backlog, and a store that counts its range scans (a scan of a cached store copies the range's keys)
        var ranges = new AtomicInteger();
        var admissions = new Admissions(counting(ranges));
        int waiting = 3 * Admissions.READ_AHEAD + 7;
        for (int offset = 0; offset < waiting; offset++) {
            admissions.park(offset, create("e" + offset));
        }
        ranges.set(0);

        // when: one start at a time
        var started = new ArrayList<Long>();
        while (!admissions.isEmpty()) {
            assertThat(admissions.oldestOffset()).isEqualTo(started.size());
            var taken = admissions.take(1);
            taken.forEach(w -> started.add(w.offset()));
            admissions.done(taken);
        }

        // then: every create in order, one scan a read-ahead, not one a start
        assertThat(started).hasSize(waiting).isSorted().doesNotHaveDuplicates();
        assertThat(ranges.get()).isEqualTo(4 + 1); // the fourth read-ahead, then the kill markers' scan
        assertThat(count()).isZero();
    }

    @Test
    void shouldTakeACreateParkedBeforeThoseReadAheadFirst() {
        // given: b and c read ahead while a is taken
        var admissions = new Admissions(store);
        admissions.park(10, create("a"));
        admissions.park(20, create("b"));
        admissions.park(30, create("c"));
        admissions.done(admissions.take(1));

        // when: a create of an earlier offset is parked (out of order)
        admissions.park(5, create("z"));
        admissions.park(40, create("d"));

        // then
        assertThat(admissions.size()).isEqualTo(4);
        assertThat(admissions.oldestOffset()).isEqualTo(5);
        var taken = admissions.take(10);
        assertThat(taken).extracting(Admissions.Waiting::executionId).containsExactly("z", "b", "c", "d");
        admissions.done(taken);
        assertThat(admissions.isEmpty()).isTrue();
        assertThat(count()).isZero();
    }

    @Test
    void shouldReadAheadNoMoreThanItsBytesAllow() {
        // given: creates whose inputs take a third of the read-ahead's bytes each
        var admissions = new Admissions(store);
        String input = "x".repeat(Admissions.READ_AHEAD_BYTES / 3);
        for (int offset = 0; offset < 5; offset++) {
            admissions.park(offset, create("e" + offset, Map.of("in", input)));
        }

        // when
        var first = admissions.take(5);
        admissions.done(first);
        var rest = admissions.take(5);

        // then: what fit in the bytes, then the rest
        assertThat(first).extracting(Admissions.Waiting::offset).containsExactly(0L, 1L, 2L);
        assertThat(rest).extracting(Admissions.Waiting::offset).containsExactly(3L, 4L);
    }

    @SuppressWarnings("unchecked")
    private KeyValueStore<String, byte[]> counting(AtomicInteger ranges) {
        return (KeyValueStore<String, byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {KeyValueStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("range")) {
                        ranges.incrementAndGet();
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private long count() {
        try (var all = store.all()) {
            long n = 0;
            while (all.hasNext()) {
                all.next();
                n++;
            }
            return n;
        }
    }

    private static CommandRecord create(String id) {
        return create(id, Map.of());
    }

    private static CommandRecord create(String id, Map<String, Object> inputs) {
        return CommandMapper.toRecord(new CreateExecution(id, "ns", "f", null, inputs, Map.of(),
                Instant.parse("2026-01-01T00:00:00Z")));
    }
}
