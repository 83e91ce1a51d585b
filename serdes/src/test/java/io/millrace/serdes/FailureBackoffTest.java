package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailureBackoffTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private final FailureBackoff backoff = new FailureBackoff(RecoveryPolicy.DEFAULT);

    @Test
    void shouldDoubleThePauseOfFailuresInARowUpToItsMaximum() {
        // when: a failure every second
        var pauses = new java.util.ArrayList<Duration>();
        for (int i = 0; i < 12; i++) {
            pauses.add(backoff.next(i * SECOND));
        }

        // then
        assertThat(pauses).startsWith(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400),
                Duration.ofMillis(800));
        assertThat(pauses.subList(9, 12)).containsOnly(Duration.ofSeconds(30));
        assertThat(backoff.inARow()).isEqualTo(12);
    }

    @Test
    void shouldStartOverAfterAQuietPeriod() {
        // given
        backoff.next(0);
        backoff.next(SECOND);
        backoff.next(2 * SECOND);

        // when: the next failure comes more than a minute after the last
        Duration pause = backoff.next(2 * SECOND + Duration.ofMinutes(1).toNanos() + 1);

        // then
        assertThat(pause).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.inARow()).isEqualTo(1);
    }
}
