package io.millrace.bench;

import java.util.Map;

/**
 * The embedded broker's requests over a window, as a standalone engine's metrics count them ({@link EngineTimers}): how
 * many per execution that ended in it, and what they waited. Every client's requests are in it, the bench's own
 * producer and reader among them. NaN where unknown: no embedded broker, or no execution or request of that kind.
 *
 * @param perExecution          requests of every kind
 * @param producePerExecution   produce requests
 * @param queueMeanMs           the mean wait of a request of any kind for a request handler thread
 * @param produceMeanMs         a produce request's mean time in the broker, from its receipt to its answer sent
 * @param endTxnMeanMs          the same of a transaction's commit ({@code EndTxn})
 * @param txnOffsetCommitMeanMs the same of a transaction's offsets ({@code TxnOffsetCommit})
 */
public record BrokerRequests(double perExecution, double producePerExecution, double queueMeanMs, double produceMeanMs,
        double endTxnMeanMs, double txnOffsetCommitMeanMs) {
    public static final BrokerRequests UNKNOWN = new BrokerRequests(Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN);

    /** From the timers' changes over a window ({@link EngineTimers#since}); the executions ended are its queued hops. */
    static BrokerRequests of(Map<String, double[]> deltas) {
        double[] ended = deltas.get(EngineTimers.key(EngineTimers.HOPS_METRIC, "queued"));
        double[] all = total(deltas, EngineTimers.BROKER_METRIC);
        // none counted: no broker in the engine's processes (a build before its meters, a broker of its own)
        double executions = ended == null || all[1] == 0 ? Double.NaN : ended[1];
        double[] queued = total(deltas, EngineTimers.BROKER_QUEUE_METRIC);
        double[] produce = request(deltas, "Produce");
        return new BrokerRequests(all[1] / executions, produce[1] / executions, meanMs(queued), meanMs(produce),
                meanMs(request(deltas, "EndTxn")), meanMs(request(deltas, "TxnOffsetCommit")));
    }

    private static double[] total(Map<String, double[]> deltas, String metric) {
        double[] total = new double[2];
        deltas.forEach((key, delta) -> {
            if (key.startsWith(metric + "/")) {
                total[0] += delta[0];
                total[1] += delta[1];
            }
        });
        return total;
    }

    private static double[] request(Map<String, double[]> deltas, String request) {
        return deltas.getOrDefault(EngineTimers.key(EngineTimers.BROKER_METRIC, request), new double[2]);
    }

    private static double meanMs(double[] secondsAndCount) {
        return secondsAndCount[1] == 0 ? Double.NaN : secondsAndCount[0] * 1000 / secondsAndCount[1];
    }
}
