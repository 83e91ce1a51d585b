package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Map;

import org.junit.jupiter.api.Test;

class EngineHopsTest {

    private static String metrics(double queuedSeconds, long queued, double runningSeconds, long running) {
        return """
                # HELP millrace_execution_hops_seconds Where an ended execution's time went, by hop
                # TYPE millrace_execution_hops_seconds summary
                millrace_execution_hops_seconds_count{hop="queued",} %d
                millrace_execution_hops_seconds_sum{hop="queued",} %s
                millrace_execution_hops_seconds_max{hop="queued",} 0.5
                millrace_execution_hops_seconds_count{hop="running",role="executor"} %d
                millrace_execution_hops_seconds_sum{hop="running",role="executor"} %s
                millrace_executions_started_total{namespace="a"} 12.0
                """.formatted(queued, queuedSeconds, running, runningSeconds);
    }

    private static final URI A = URI.create("http://localhost:1/metrics");
    private static final URI B = URI.create("http://localhost:2/metrics");

    @Test
    void shouldGiveEachHopsMeanOverTheExecutionsThatEndedBetweenTwoReadings() {
        // given: two processes read before and after a window
        var before = new EngineHops(Map.of(A, EngineHops.parse(metrics(1.0, 100, 0.5, 100)),
                B, EngineHops.parse(metrics(2.0, 100, 0.5, 100))));
        var after = new EngineHops(Map.of(A, EngineHops.parse(metrics(1.5, 150, 0.5, 100)),
                B, EngineHops.parse(metrics(2.75, 200, 0.5, 100))));

        // when
        var means = after.meansMsSince(before);

        // then: queued (1.25 s over 150 executions); nothing ended running; nothing else counted
        assertThat(means).containsOnlyKeys("queued");
        assertThat(means.get("queued")).isCloseTo(8.333, org.assertj.core.data.Offset.offset(0.001));
        assertThat(EngineHops.NONE.meansMsSince(EngineHops.NONE)).isEmpty();
    }

    @Test
    void shouldLeaveOutAProcessNotReadBeforeOrRestartedBetween() {
        // given: B did not answer before the window; A restarted during it (its counts started again)
        var before = new EngineHops(Map.of(A, EngineHops.parse(metrics(10.0, 1000, 0, 0))));
        var after = new EngineHops(Map.of(A, EngineHops.parse(metrics(0.5, 10, 0, 0)),
                B, EngineHops.parse(metrics(9.0, 1000, 0, 0))));

        // when / then: neither counts, so no mean
        assertThat(after.meansMsSince(before)).isEmpty();
    }
}
