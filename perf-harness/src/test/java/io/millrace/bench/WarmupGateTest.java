package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WarmupGateTest {
    private static final long SECOND = 1_000_000_000L;
    private final WarmupGate gate = new WarmupGate(Duration.ofSeconds(10), Duration.ofSeconds(120));

    @Test
    void shouldWarmUpForTheLeastTimeEvenWhenTheJitIsIdle() {
        assertThat(gate.done(5 * SECOND, 0.0)).isFalse();
        assertThat(gate.done(10 * SECOND, 0.0)).isTrue();
    }

    @Test
    void shouldGoOnWhileTheJitIsStillCompiling() {
        assertThat(gate.done(10 * SECOND, 0.80)).isFalse();
        assertThat(gate.done(60 * SECOND, WarmupGate.SETTLED_SHARE)).isFalse();
        assertThat(gate.done(65 * SECOND, 0.03)).isTrue();
    }

    @Test
    void shouldStopAtTheMostTimeWhateverTheJitDoes() {
        assertThat(gate.done(115 * SECOND, 0.50)).isFalse();
        assertThat(gate.done(120 * SECOND, 0.50)).isTrue();
    }

    @Test
    void shouldEndAfterTheLeastTimeWhenTheCompileTimeIsUnknown() {
        assertThat(gate.done(5 * SECOND, -1)).isFalse();
        assertThat(gate.done(10 * SECOND, -1)).isTrue();
    }

    @Test
    void shouldTakeTheLeastTimeWhenTheMostIsShorter() {
        var shortMax = new WarmupGate(Duration.ofSeconds(30), Duration.ofSeconds(10));

        assertThat(shortMax.done(10 * SECOND, 0.50)).isFalse();
        assertThat(shortMax.done(30 * SECOND, 0.50)).isTrue();
    }
}
