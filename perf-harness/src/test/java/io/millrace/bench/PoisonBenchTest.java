package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoisonBenchTest {

    @Test
    void shouldPassTheLoadOnlyWhileItsP99StaysWithinTwiceTheCleanOne() {
        // given: p99 is four times the median in these rows
        RateResult clean = ReportTest.row("W1", "exactly_once_v2", "poison=off", 50, 10);
        RateResult twice = ReportTest.row("W1", "exactly_once_v2", "poison=on", 50, 20);
        RateResult more = ReportTest.row("W1", "exactly_once_v2", "poison=on", 50, 21);

        // when / then
        assertThat(PoisonBench.load(List.of(clean, twice)).passed()).isTrue();
        assertThat(PoisonBench.load(List.of(clean, more)).passed()).isFalse();
        assertThat(PoisonBench.load(List.of(clean, more)).detail()).startsWith("2.10x (at most 2.0x)");
        assertThat(PoisonBench.load(List.of(clean)).passed()).as("the load fell behind before the poison").isFalse();
    }

    @Test
    void shouldMarkAFailedCheckInTheTable() {
        // given
        var checks = List.of(new PoisonBench.Check("wide-read", "FAILED", 0.8, "max-decision-bytes", true),
                new PoisonBench.Check("big-outputs", "SUCCESS", 31.0, "a | b", false));

        // when
        String md = PoisonBench.markdown(checks);

        // then
        assertThat(md).contains("| wide-read | FAILED | 0.8 s | yes | max-decision-bytes |")
                .contains("| big-outputs | SUCCESS | 31.0 s | **no** | a \\| b |");
    }
}
