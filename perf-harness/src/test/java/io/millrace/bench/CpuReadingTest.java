package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.millrace.bench.CpuReading.ThreadCpu;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuReadingTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void shouldChargeEachThreadsCpuInTheWindowToItsPartAndTheRestToTheJvm() {
        // given: over 2 s the process used 3 s of CPU
        var before = new CpuReading(10 * SECOND, Map.of(
                "0/1", new ThreadCpu(EnginePart.EXECUTOR, 4 * SECOND),
                "0/2", new ThreadCpu(EnginePart.EXECUTOR, SECOND),
                "0/3", new ThreadCpu(EnginePart.BROKER, 2 * SECOND)));
        var after = new CpuReading(13 * SECOND, Map.of(
                "0/1", new ThreadCpu(EnginePart.EXECUTOR, 5 * SECOND),
                "0/2", new ThreadCpu(EnginePart.EXECUTOR, SECOND + SECOND / 2),
                "0/3", new ThreadCpu(EnginePart.BROKER, 2 * SECOND + SECOND / 4)));

        // when
        CpuUse use = after.since(before, 2 * SECOND);

        // then
        assertThat(use.totalPct()).isCloseTo(150, within(1e-9));
        assertThat(use.pct(EnginePart.EXECUTOR)).isCloseTo(75, within(1e-9));
        assertThat(use.pct(EnginePart.BROKER)).isCloseTo(12.5, within(1e-9));
        assertThat(use.pct(EnginePart.JVM)).isCloseTo(62.5, within(1e-9));
        assertThat(use.pct(EnginePart.WORKERS)).isZero();
    }

    @Test
    void shouldCountAThreadThatStartedInTheWindowInFullAndTellProcessesApart() {
        // given: thread 1 of the second process is new; its id is also one of the first process's
        var before = new CpuReading(SECOND, Map.of("0/1", new ThreadCpu(EnginePart.BROKER, SECOND / 2)));
        var after = new CpuReading(2 * SECOND, Map.of(
                "0/1", new ThreadCpu(EnginePart.BROKER, SECOND / 2),
                "1/1", new ThreadCpu(EnginePart.WORKERS, SECOND / 4)));

        // when
        CpuUse use = after.since(before, SECOND);

        // then
        assertThat(use.pct(EnginePart.WORKERS)).isCloseTo(25, within(1e-9));
        assertThat(use.pct(EnginePart.BROKER)).isZero();
        assertThat(use.pct(EnginePart.JVM)).isCloseTo(75, within(1e-9));
    }

    @Test
    void shouldKnowTheTotalWithoutThreadsAndNothingWithoutTheProcess() {
        // given
        var before = new CpuReading(SECOND, Map.of());
        var after = new CpuReading(2 * SECOND, Map.of());

        // when
        CpuUse totalOnly = after.since(before, SECOND);
        CpuUse unknown = after.since(CpuReading.UNKNOWN, SECOND);

        // then
        assertThat(totalOnly.totalPct()).isCloseTo(100, within(1e-9));
        assertThat(totalOnly.pct(EnginePart.EXECUTOR)).isNaN();
        assertThat(unknown.totalPct()).isNaN();
        assertThat(unknown.byPartPct()).isEmpty();
    }
}
