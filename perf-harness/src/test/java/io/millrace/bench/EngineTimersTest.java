package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.net.URI;
import java.util.Map;

import org.junit.jupiter.api.Test;

class EngineTimersTest {

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
        var before = new EngineTimers(Map.of(A, EngineTimers.parse(metrics(1.0, 100, 0.5, 100)),
                B, EngineTimers.parse(metrics(2.0, 100, 0.5, 100))));
        var after = new EngineTimers(Map.of(A, EngineTimers.parse(metrics(1.5, 150, 0.5, 100)),
                B, EngineTimers.parse(metrics(2.75, 200, 0.5, 100))));

        // when
        var means = after.hopMeansMsSince(before);

        // then: queued (1.25 s over 150 executions); nothing ended running; nothing else counted
        assertThat(means).containsOnlyKeys("queued");
        assertThat(means.get("queued")).isCloseTo(8.333, org.assertj.core.data.Offset.offset(0.001));
        assertThat(EngineTimers.NONE.hopMeansMsSince(EngineTimers.NONE)).isEmpty();
    }

    @Test
    void shouldCountTheBrokersRequestsPerExecutionThatEnded() {
        // given: 40 executions ended; the broker answered 100 produce requests (0.2 s), 20 commits (0.1 s) and 180
        // fetches, and its requests waited 30 ms in all for a handler
        var before = new EngineTimers(Map.of(A, EngineTimers.parse(metrics(1.0, 100, 0, 0) + broker(1000, 2.0, 50, 0.5,
                400, 0.2))));
        var after = new EngineTimers(Map.of(A, EngineTimers.parse(metrics(1.4, 140, 0, 0) + broker(1100, 2.2, 70, 0.6,
                580, 0.23))));

        // when
        BrokerRequests broker = BrokerRequests.of(after.since(before));

        // then
        assertThat(broker.perExecution()).isCloseTo(7.5, within(1e-9));
        assertThat(broker.producePerExecution()).isCloseTo(2.5, within(1e-9));
        assertThat(broker.produceMeanMs()).isCloseTo(2.0, within(1e-9));
        assertThat(broker.endTxnMeanMs()).isCloseTo(5.0, within(1e-9));
        assertThat(broker.queueMeanMs()).isCloseTo(0.1, within(1e-9));
        assertThat(broker.txnOffsetCommitMeanMs()).isNaN();
        assertThat(BrokerRequests.of(EngineTimers.NONE.since(EngineTimers.NONE)).perExecution()).isNaN();
        var withoutBroker = new EngineTimers(Map.of(A, EngineTimers.parse(metrics(1.4, 140, 0, 0))));
        assertThat(BrokerRequests.of(withoutBroker.since(new EngineTimers(Map.of(A,
                EngineTimers.parse(metrics(1.0, 100, 0, 0))))))).isEqualTo(BrokerRequests.UNKNOWN);
    }

    /** The broker's produce, commit and fetch requests, and every request's wait in the handlers' queue. */
    private static String broker(long produce, double produceSeconds, long endTxn, double endTxnSeconds, long fetch,
            double queueSeconds) {
        return """
                millrace_broker_request_seconds_count{request="Produce",} %d
                millrace_broker_request_seconds_sum{request="Produce",} %s
                millrace_broker_request_seconds_count{request="EndTxn",} %d
                millrace_broker_request_seconds_sum{request="EndTxn",} %s
                millrace_broker_request_seconds_count{request="Fetch",} %d
                millrace_broker_request_seconds_sum{request="Fetch",} 400.0
                millrace_broker_request_queue_seconds_count{request="Produce",} %d
                millrace_broker_request_queue_seconds_sum{request="Produce",} %s
                millrace_broker_request_queue_seconds_count{request="EndTxn",} %d
                millrace_broker_request_queue_seconds_sum{request="EndTxn",} 0
                millrace_broker_request_queue_seconds_count{request="Fetch",} %d
                millrace_broker_request_queue_seconds_sum{request="Fetch",} 0
                """.formatted(produce, produceSeconds, endTxn, endTxnSeconds, fetch, produce, queueSeconds, endTxn,
                fetch);
    }

    @Test
    void shouldLeaveOutAProcessNotReadBeforeOrRestartedBetween() {
        // given: B did not answer before the window; A restarted during it (its counts started again)
        var before = new EngineTimers(Map.of(A, EngineTimers.parse(metrics(10.0, 1000, 0, 0))));
        var after = new EngineTimers(Map.of(A, EngineTimers.parse(metrics(0.5, 10, 0, 0)),
                B, EngineTimers.parse(metrics(9.0, 1000, 0, 0))));

        // when / then: neither counts, so no mean
        assertThat(after.hopMeansMsSince(before)).isEmpty();
    }
}
