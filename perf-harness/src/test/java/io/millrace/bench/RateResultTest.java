package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RateResultTest {

    private static RateResult ended(double offered, double achieved, long failures) {
        return new RateResult("W5", "exactly_once_v2", "", offered, achieved, 100, 150, 200, 250, 300, failures, 0, 1.5,
                Double.NaN, 4, 101, new CpuUse(50.0, Map.of()), 256.0, 10.0, 0, 0, Double.NaN, Double.NaN,
                RateResult.Breakdown.UNKNOWN);
    }

    @Test
    void shouldKeepUpOneExecutionShortAtALowRate() {
        // given: 1/s over 7.5 s, 7 of 7.5 ended in the window (the eighth just after it)
        RateResult result = ended(1, 7 / 7.5, 0);

        // when
        boolean keptUp = result.keptUp(7.5);

        // then
        assertThat(keptUp).isTrue();
    }

    @Test
    void shouldFallBehindTwoExecutionsShortAtALowRate() {
        // given: 1/s over 7.5 s, 5 ended
        RateResult result = ended(1, 5 / 7.5, 0);

        // when
        boolean keptUp = result.keptUp(7.5);

        // then
        assertThat(keptUp).isFalse();
    }

    @Test
    void shouldFallBehindBelowNinetyFivePercentAtAHighRate() {
        // given: 100/s over 7.5 s, 94/s ended: one execution does not make up 7.5
        RateResult result = ended(100, 94, 0);

        // when
        boolean keptUp = result.keptUp(7.5);

        // then
        assertThat(keptUp).isFalse();
        assertThat(ended(100, 95, 0).keptUp(7.5)).isTrue();
    }

    @Test
    void shouldNotKeepUpWithAFailure() {
        // given: every execution ended, one of them failed
        RateResult result = ended(1, 1, 1);

        // when
        boolean keptUp = result.keptUp(7.5);

        // then
        assertThat(keptUp).isFalse();
    }
}
