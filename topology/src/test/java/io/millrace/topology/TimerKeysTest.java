package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Timer;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Timer keys are stored: their form must not change, and a range of due times must find exactly its timers. */
class TimerKeysTest {
    private static final Instant DUE = Instant.parse("2026-11-23T12:00:00Z");

    @Test
    void shouldStartWithThirteenDigitsOfTheDueTime() {
        Timer timer = new Timer("e1", Timer.Kind.LEASE, "run", 2, DUE);

        assertThat(TimerKeys.of(timer)).isEqualTo(DUE.toEpochMilli() + "/e1/LEASE/run/2");
        assertThat(TimerKeys.from(42)).isEqualTo("0000000000042");
    }

    @Test
    void shouldPlaceATimerInsideTheRangeOfItsDueTimeOnly() {
        String key = TimerKeys.of(Timer.purge("e1", DUE));
        long due = DUE.toEpochMilli();

        assertThat(key).isBetween(TimerKeys.from(due), TimerKeys.upTo(due));
        assertThat(key).isGreaterThan(TimerKeys.upTo(due - 1));
        assertThat(key).isLessThan(TimerKeys.from(due + 1));
        assertThat(TimerKeys.from(999)).isLessThan(TimerKeys.from(1_000)); // fixed width: numeric order is key order
    }
}
