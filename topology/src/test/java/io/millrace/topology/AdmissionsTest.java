package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.CreateExecution;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.avro.CommandRecord;
import java.time.Instant;
import java.util.Map;
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
        return CommandMapper.toRecord(new CreateExecution(id, "ns", "f", null, Map.of(), Map.of(),
                Instant.parse("2026-01-01T00:00:00Z")));
    }
}
