package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.Command;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.AvroSerde;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a punctuation fires: due timers in due order, a bounded batch at a time, leases only after a fresh start's grace. */
class DueTimersTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ExecutorMetrics metrics = new ExecutorMetrics(registry, "millrace.");
    private final List<Timer> fired = new ArrayList<>();
    private final List<Boolean> storedWhileHandled = new ArrayList<>();
    private KeyValueStore<String, TimerRecord> store;

    @BeforeEach
    void createStore() {
        context.setCurrentSystemTimeMs(NOW.toEpochMilli());
        Serde<TimerRecord> serde = new AvroSerde<>(TimerRecord.getClassSchema());
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(Names.TIMERS_STORE), Serdes.String(), serde)
                .withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
    }

    @Test
    void shouldFireAtMostOneBatchOfDueTimersAPunctuationAndTheRestAtTheNext() {
        // given: one timer more than a punctuation fires, all of them due
        for (int i = 0; i <= DueTimers.MAX_TIMERS_PER_PUNCTUATION; i++) {
            put(new Timer("e" + i, Timer.Kind.RETRY, "t", 1, NOW.minusSeconds(60).plusMillis(i)));
        }
        DueTimers timers = dueTimers(0);

        // when
        timers.fire(NOW.toEpochMilli());

        // then: the earliest batch fired and was deleted, each once handled; the latest timer waits
        assertThat(fired).hasSize(DueTimers.MAX_TIMERS_PER_PUNCTUATION);
        assertThat(storedWhileHandled).containsOnly(true);
        assertThat(fired.getFirst().executionId()).isEqualTo("e0");
        assertThat(storedTimers()).extracting(Timer::executionId).containsExactly("e500");

        // when
        timers.fire(NOW.plusMillis(50).toEpochMilli());

        // then
        assertThat(fired).hasSize(DueTimers.MAX_TIMERS_PER_PUNCTUATION + 1);
        assertThat(fired.getLast().executionId()).isEqualTo("e500");
        assertThat(storedTimers()).isEmpty();
    }

    @Test
    void shouldFireATimerStoredForBeforeWhereTheLastScanEndedWhenTheClockWentBack() {
        // given: a punctuation found nothing due, so the next scans start after its time
        DueTimers timers = dueTimers(0);
        timers.fire(NOW.toEpochMilli());
        Timer early = new Timer("e1", Timer.Kind.RETRY, "t", 1, NOW.minusSeconds(5));

        // when: a timer due before that is stored, and the next punctuation comes
        put(early);
        timers.stored(early.dueAt().toEpochMilli());
        timers.fire(NOW.plusMillis(50).toEpochMilli());

        // then
        assertThat(fired).containsExactly(early);
    }

    @Test
    void shouldMoveALeaseThatRanOutToTheEndOfTheGraceAndFireTheOtherTimers() {
        // given: a fresh start whose grace ends in 10 s, and a lease and a retry that ran out while it was stopped
        long graceUntil = NOW.plusSeconds(10).toEpochMilli();
        Timer lease = new Timer("e1", Timer.Kind.LEASE, "t1", 1, NOW.minusSeconds(1));
        Timer retry = new Timer("e2", Timer.Kind.RETRY, "t2", 1, NOW.minusSeconds(1));
        put(lease);
        put(retry);
        DueTimers timers = dueTimers(graceUntil);

        // when
        timers.fire(NOW.toEpochMilli());

        // then: the retry fired; the lease waits for the grace's end, with a wake-up then
        Timer later = new Timer("e1", Timer.Kind.LEASE, "t1", 1, Instant.ofEpochMilli(graceUntil));
        assertThat(fired).containsExactly(retry);
        assertThat(storedTimers()).containsExactly(later);
        assertThat(context.scheduledPunctuators()).singleElement()
                .satisfies(wake -> assertThat(wake.getStartTime()).isEqualTo(Instant.ofEpochMilli(graceUntil)));

        // when: the grace is over
        timers.fire(graceUntil);

        // then
        assertThat(fired).containsExactly(retry, later);
    }

    @Test
    void shouldDeadLetterAnUnreadableTimerAndFireTheNext() {
        // given: a timer of a kind no one knows, then a readable one
        store.put(TimerKeys.from(NOW.minusSeconds(2).toEpochMilli()) + "/odd",
                new TimerRecord("e1", "SNOOZE", "t", 1, NOW.minusSeconds(2)));
        Timer retry = new Timer("e2", Timer.Kind.RETRY, "t", 1, NOW.minusSeconds(1));
        put(retry);

        // when
        dueTimers(0).fire(NOW.toEpochMilli());

        // then
        assertThat(fired).containsExactly(retry);
        assertThat(storedTimers()).isEmpty();
        assertThat(context.forwarded()).singleElement().satisfies(forward -> {
            var letter = (DeadLetterRecord) ((Encoded) forward.record().value()).record();
            assertThat(letter.getKey()).isEqualTo("e1");
            assertThat(letter.getReason()).startsWith("Unreadable timer ").contains("SNOOZE");
        });
        assertThat(registry.get(DeadLetterMeters.NAME).tags("reason", "unreadable", "topic", "none").counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldGiveLeasesAThirdOfTheLeaseAfterAFreshStartAtMostTenSeconds() {
        // when / then
        assertThat(DueTimers.leaseGrace(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(1));
        assertThat(DueTimers.leaseGrace(Duration.ofMinutes(5))).isEqualTo(DueTimers.MAX_LEASE_GRACE);
    }

    private DueTimers dueTimers(long leaseGraceUntil) {
        var wakeup = new Wakeup(context, Duration.ofMillis(50), millis -> { });
        var deadLetters = new CountedDeadLetters(context, MillraceConfig.defaults().executorLimits(), metrics);
        return new DueTimers(store, wakeup, leaseGraceUntil, metrics, deadLetters, this::handle);
    }

    private void handle(Command command, Object original) {
        Timer timer = ((TimerFired) command).timer();
        fired.add(timer);
        storedWhileHandled.add(store.get(TimerKeys.of(timer)) != null);
    }

    private void put(Timer timer) {
        store.put(TimerKeys.of(timer), ExecutionMapper.toRecord(timer));
    }

    private List<Timer> storedTimers() {
        var timers = new ArrayList<Timer>();
        try (KeyValueIterator<String, TimerRecord> all = store.all()) {
            all.forEachRemaining(entry -> timers.add(ExecutionMapper.fromRecord(entry.value)));
        }
        return timers;
    }
}
