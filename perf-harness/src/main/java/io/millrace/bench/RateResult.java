package io.millrace.bench;

import java.util.Map;

/**
 * What one measurement window at one offered rate gave, for one engine setting.
 *
 * @param workload        W1..W6
 * @param guarantee       the executor's processing guarantee
 * @param settings        the other settings of this run, {@code key=value} joined by spaces ("" for defaults)
 * @param offeredPerS     executions started per second, on schedule
 * @param achievedPerS    executions of this run that reached a terminal state per second, over the second half of the
 *                        window (the first half lets the pipeline fill)
 * @param p50Ms           latency percentiles, from the due start time to the terminal snapshot, in milliseconds
 * @param failures        executions due in the window that ended in another state than SUCCESS or never ended
 * @param unfinished      of {@code failures}, those with no terminal state after the drain: behind, not failed by the
 *                        engine
 * @param floorP50Ms      median latency of one Kafka produce-consume hop at the same rate, same broker
 * @param floorEosP50Ms   median latency of a plain hop followed by an exactly-once hop (a transaction committed at
 *                        once) at the same rate, same broker; NaN when not measured (at-least-once)
 * @param hops            Kafka hops one execution of the workload needs end to end
 * @param taskRuns        task runs the engine creates for one successful execution of the workload
 * @param engineCpu       CPU of the engine processes over the second half of the window, in total and per part
 * @param engineHeapMb    live heap of the engine processes after the window, in MiB; NaN when unknown
 * @param storeMb         size on disk of the engine's state directories after the window, in MiB; NaN when unknown
 * @param refused         starts due in the window that the engine refused, asking to retry later (REST: 429 or 503 with
 *                        {@code Retry-After}); not failures, and not in the latencies
 * @param unanswered      starts due in the window that got no answer at all (timed out, connection failed)
 * @param answerP99Ms     REST starts: the 99th percentile of the time from the due start to the HTTP answer (a start,
 *                        a refusal or an error), in milliseconds; NaN for starts through Kafka
 * @param startP99Ms      successful executions: the 99th percentile of the time from the due start to the executor's start
 *                        of the execution (its CREATED time), in milliseconds: the part of the latency spent before it ran
 * @param breakdown       successful executions: where the median execution's time went
 */
public record RateResult(String workload, String guarantee, String settings, double offeredPerS, double achievedPerS,
        double p50Ms, double p90Ms, double p99Ms, double p999Ms, double maxMs, long failures, long unfinished,
        double floorP50Ms, double floorEosP50Ms, int hops, int taskRuns, CpuUse engineCpu, double engineHeapMb,
        double storeMb, long refused, long unanswered, double answerP99Ms, double startP99Ms, Breakdown breakdown) {

    /**
     * Medians, in milliseconds, of the three parts of a successful execution's latency, each measured on its own (so
     * they need not add up to the median latency): {@code queuedMs} from the due start to the executor's start (CREATED),
     * {@code runMs} from there to the executor's decision that ended it (its steps, tasks and their hops),
     * {@code seenMs} from that decision to a committed reader's read of the terminal snapshot (under exactly-once the
     * wait for the commit, then the delivery). NaN when not known. {@code engineMeansMs}: the engine's own breakdown,
     * the mean of each of its hops ({@link EngineTimers#HOPS}) over the executions that ended in the window, as its
     * metrics count them; empty for an engine the bench did not start. {@code broker}: the embedded broker's
     * requests over the window, per execution, and their times; unknown without one.
     */
    public record Breakdown(double queuedMs, double runMs, double seenMs, Map<String, Double> engineMeansMs,
            BrokerRequests broker) {
        public static final Breakdown UNKNOWN = new Breakdown(Double.NaN, Double.NaN, Double.NaN);

        public Breakdown {
            engineMeansMs = Map.copyOf(engineMeansMs);
        }

        public Breakdown(double queuedMs, double runMs, double seenMs) {
            this(queuedMs, runMs, seenMs, Map.of(), BrokerRequests.UNKNOWN);
        }

        /**
         * The medians of {@code window}, and from the engine's timers over it ({@link EngineTimers#since}) the means of
         * each hop and its broker's requests.
         */
        static Breakdown of(LatencyWindow window, EngineTimers before, EngineTimers after) {
            return new Breakdown(window.startPercentileMs(50), window.runPercentileMs(50), window.seenPercentileMs(50),
                    after.hopMeansMsSince(before), BrokerRequests.of(after.since(before)));
        }

        /** The engine's mean of {@code hop} in milliseconds, NaN when it has none. */
        public double engineMs(String hop) {
            return engineMeansMs.getOrDefault(hop, Double.NaN);
        }
    }

    /** This result under other settings' name. */
    public RateResult withSettings(String otherSettings) {
        return new RateResult(workload, guarantee, otherSettings, offeredPerS, achievedPerS, p50Ms, p90Ms, p99Ms, p999Ms,
                maxMs, failures, unfinished, floorP50Ms, floorEosP50Ms, hops, taskRuns, engineCpu, engineHeapMb, storeMb,
                refused, unanswered, answerP99Ms, startP99Ms, breakdown);
    }

    /**
     * The floor of the whole flow: one hop's median latency times the hops the workload needs; under exactly-once the
     * start and the end are a plain and an exactly-once hop (the committed terminal snapshot), so that pair's median
     * replaces two plain hops.
     */
    public double flowFloorMs() {
        return Double.isNaN(floorEosP50Ms) ? floorP50Ms * hops : floorP50Ms * (hops - 2) + floorEosP50Ms;
    }

    /** Task runs of the achieved executions per second: the engine's work in units that do not depend on the flow. */
    public double taskRunsPerS() {
        return achievedPerS * taskRuns;
    }

    /** CPU of the engine processes, in percent of one core; NaN when unknown. */
    public double engineCpuPct() {
        return engineCpu.totalPct();
    }

    /**
     * Whether completions kept up with the offered rate and every start was accepted, answered and succeeded. Kept up is
     * at least 95 % of the offered rate ended over the {@code measuredSeconds} that {@link #achievedPerS} counts, less
     * one execution: the count's grain, which at a low rate is more than the 5 % (at 1/s over 7.5 s, one execution that
     * ends just after the window is 13 %, and stopped sweeps that had kept up).
     */
    public boolean keptUp(double measuredSeconds) {
        return failures == 0 && refused == 0 && unanswered == 0
                && achievedPerS * measuredSeconds + 1 >= offeredPerS * measuredSeconds * 0.95;
    }
}
