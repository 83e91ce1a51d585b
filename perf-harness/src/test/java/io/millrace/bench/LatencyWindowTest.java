package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyWindowTest {

    @Test
    void shouldAnswerPercentilesInMilliseconds() {
        // given: 1..1000 ms
        var window = new LatencyWindow();
        for (int ms = 1; ms <= 1_000; ms++) {
            window.expectOne();
            window.recordSuccess(ms * 1_000_000L);
        }

        // then: within HdrHistogram's three significant digits
        assertThat(window.percentileMs(50)).isCloseTo(500, within(0.5));
        assertThat(window.percentileMs(99)).isCloseTo(990, within(1.0));
        assertThat(window.percentileMs(99.9)).isCloseTo(999, within(1.0));
        assertThat(window.maxMs()).isCloseTo(1_000, within(1.0));
        assertThat(window.completed()).isEqualTo(1_000);
        assertThat(window.failuresAndMissing()).isZero();
    }

    @Test
    void shouldCountFailuresAndExecutionsThatNeverEnded() {
        // given: five expected, two succeeded, one failed, two never ended
        var window = new LatencyWindow();
        for (int i = 0; i < 5; i++) {
            window.expectOne();
        }
        window.recordSuccess(2_000_000);
        window.recordSuccess(4_000_000);
        window.recordFailure();

        // then
        assertThat(window.completed()).isEqualTo(3);
        assertThat(window.failuresAndMissing()).isEqualTo(3);
        assertThat(window.unfinished()).isEqualTo(2);
        assertThat(window.percentileMs(50)).isCloseTo(2.0, within(0.01));
    }

    @Test
    void shouldAnswerNaNWhenNothingSucceeded() {
        var window = new LatencyWindow();
        window.recordFailure();

        assertThat(window.percentileMs(50)).isNaN();
        assertThat(window.maxMs()).isNaN();
    }
}
