package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.millrace.serdes.Topics;
import java.net.URI;
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
    void shouldCountTheStartsOfTheWindowsButNotOfTheWarmUp() {
        // given: a suite that sends no poison
        var ledger = new ChaosLedger();
        var bench = new PoisonBench(URI.create("http://localhost:1/api/v1"), null, "localhost:2", new Topics("t."),
                "workers", List.of("none"), ledger, ChaosLedger.Via.KAFKA);

        // when
        bench.started("warm-up");
        bench.windowStarting(0);
        bench.started("clean");
        bench.windowStarting(1);
        bench.started("poisoned");
        ledger.completed("clean", "SUCCESS", 1);
        ledger.completed("poisoned", "SUCCESS", 1);
        ledger.completed("poisoned", "SUCCESS", 1);

        // then
        assertThat(bench.checks()).isEmpty();
        assertThat(ledger.rows("", true)).extracting(ChaosLedger.Row::phase, ChaosLedger.Row::accepted,
                ChaosLedger.Row::endedOnce, ChaosLedger.Row::doubled).containsExactly(
                tuple(PoisonBench.CLEAN, 1L, 1L, 0L), tuple(PoisonBench.POISONED, 1L, 0L, 1L));
    }

    @Test
    void shouldSkipTheRestartAgainstARunningEngineAndSaySo() throws Exception {
        // given
        var bench = new PoisonBench(URI.create("http://localhost:1/api/v1"), null, "localhost:2", new Topics("t."),
                "workers", List.of("none"), new ChaosLedger(), ChaosLedger.Via.REST);

        // when
        List<PoisonBench.Check> restart = bench.restart(null, true, line -> { });

        // then
        assertThat(restart).singleElement().satisfies(check -> {
            assertThat(check.passed()).isTrue();
            assertThat(PoisonBench.markdown(restart)).contains("| SIGKILL, restart on the same data | skipped |  | skipped "
                    + "| the engine runs elsewhere");
        });
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
