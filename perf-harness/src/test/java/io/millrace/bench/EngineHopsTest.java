package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

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

    @Test
    void shouldGiveEachHopsMeanOverTheExecutionsThatEndedBetweenTwoReadings() {
        // given: two processes' metrics read together, before and after a window
        EngineHops before = EngineHops.parse(metrics(1.0, 100, 0.5, 100) + metrics(2.0, 100, 0.5, 100));
        EngineHops after = EngineHops.parse(metrics(1.5, 150, 0.5, 100) + metrics(2.75, 200, 0.5, 100));

        // when
        var means = after.meansMsSince(before);

        // then: queued (1.25 s over 150 executions), nothing ended running, nothing else counted
        assertThat(means).containsOnlyKeys("queued");
        assertThat(means.get("queued")).isCloseTo(8.333, org.assertj.core.data.Offset.offset(0.001));
        assertThat(after.meansMsSince(EngineHops.NONE).get("running")).isEqualTo(5.0); // 1 s over 200
        assertThat(EngineHops.NONE.meansMsSince(EngineHops.NONE)).isEmpty();
    }
}
