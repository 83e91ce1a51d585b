package io.millrace.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * One sweep against one running engine: a warm-up (at the first rate unless the plan names another) until the JIT has
 * settled, then a measurement window per rate, each followed by a drain of its stragglers and a Kafka-floor measurement
 * at the same rate. The sweep stops at the first rate where completions fall behind the offered rate or executions
 * fail.
 */
final class Sweep {
    /** What a sweep needs from the engine under test. */
    interface Engine {
        Starter starter();

        Tracker tracker();

        EngineProbe probe();

        /** Size of the state stores in MiB, NaN when unknown. */
        double storeMb();

        FloorProbe floor();

        /**
         * The engine's own timers so far (its hops, its broker's requests); none when unknown (an engine the bench did
         * not start).
         */
        default EngineTimers timers() {
            return EngineTimers.NONE;
        }

        /** Called as the measurement window at {@code rateIndex} (0 for the first rate) begins. */
        default void windowStarting(int rateIndex) {
        }
    }

    /** How often the warm-up asks whether the JIT has settled. */
    static final Duration WARMUP_SLICE = Duration.ofSeconds(5);

    /**
     * {@code warmupRate} is the warm-up's rate, {@code warmup} its least length (none when zero), {@code warmupMax} its
     * greatest.
     */
    record Plan(Workload workload, String guarantee, String settings, List<Double> rates, double warmupRate,
            Duration warmup, Duration warmupMax,
            Duration duration, Duration floorDuration, Duration drain) {
        /** Whether the floor needs its exactly-once pair: the engine's terminal snapshot waits for a commit. */
        boolean exactlyOnce() {
            return guarantee.startsWith("exactly_once");
        }
    }

    private Sweep() {
    }

    static List<RateResult> run(Plan plan, Engine engine, Consumer<String> progress) throws InterruptedException {
        var results = new ArrayList<RateResult>();
        if (!plan.warmup().isZero()) {
            warmUp(plan, engine, progress);
        }
        long nextIndex = 1_000_000_000L;
        for (double rate : plan.rates()) {
            engine.windowStarting(results.size());
            var window = new LatencyWindow();
            long start = System.nanoTime();
            long mid = start + plan.duration().toNanos() / 2;
            long end = start + plan.duration().toNanos();
            var schedule = new RateSchedule(start, rate);
            long firstIndex = nextIndex;
            Starter starter = engine.starter();
            OpenLoop.Send send = (i, due) -> starter.start(firstIndex + i, due, window);
            // the first half lets the pipeline fill (a 5 s task completes nothing in its first 5 s); throughput
            // and CPU are read over the second half
            long next = OpenLoop.run(schedule, 0, mid, send);
            CpuReading cpuBefore = engine.probe().cpu();
            // read beside the starts, which a blocking read would delay
            CompletableFuture<EngineTimers> timersBefore = CompletableFuture.supplyAsync(engine::timers);
            long completionsBefore = engine.tracker().completions();
            long measuredFrom = System.nanoTime();
            OpenLoop.run(schedule, next, end, send);
            nextIndex += 1_000_000_000L;
            long measuredTo = System.nanoTime();
            double achieved = (engine.tracker().completions() - completionsBefore) * 1e9 / (measuredTo - measuredFrom);
            CpuUse cpu = engine.probe().cpu().since(cpuBefore, measuredTo - measuredFrom);
            drain(window, plan.drain());
            // the engine's timers of the executions that ended from the second half's start to the drain's end
            EngineTimers timersAfter = engine.timers();
            // read the window now: executions that end later (during the floor measurement) are missing, not late
            double p50 = window.percentileMs(50);
            double p90 = window.percentileMs(90);
            double p99 = window.percentileMs(99);
            double p999 = window.percentileMs(99.9);
            double max = window.maxMs();
            double startP99 = window.startPercentileMs(99);
            var breakdown = RateResult.Breakdown.of(window, timersBefore.join(), timersAfter);
            long failures = window.failuresAndMissing();
            long unfinished = window.unfinished();
            long refused = window.refused();
            long unanswered = window.unanswered();
            double heapMb = engine.probe().liveHeapMb();
            double storeMb = engine.storeMb();
            FloorProbe.Floor floor = engine.floor().measure(rate, plan.floorDuration(), plan.exactlyOnce());
            double floorEos = plan.exactlyOnce() ? floor.exactlyOnce().percentileMs(50) : Double.NaN;
            var result = new RateResult(plan.workload().name(), plan.guarantee(), plan.settings(), rate, achieved,
                    p50, p90, p99, p999, max, failures, unfinished, floor.plain().percentileMs(50), floorEos,
                    plan.workload().hops(), plan.workload().taskRuns(), cpu, heapMb, storeMb, refused, unanswered,
                    window.answerPercentileMs(99), startP99, breakdown);
            results.add(result);
            progress.accept(String.format(Locale.ROOT,
                    "%s %s %s offered %s/s achieved %.1f/s (%.0f task runs/s) p50 %.1f ms p99 %.1f ms"
                    + " (to start: p99 %.1f ms; p50 queued %.1f, run %.1f, end to read %.1f ms) failures %d%s%s"
                    + " (floor p50 %.2f ms%s, %d hops: %.1f ms)%s%s",
                    result.workload(), result.guarantee(), result.settings(), rate(rate), achieved, result.taskRunsPerS(),
                    result.p50Ms(), result.p99Ms(), result.startP99Ms(), breakdown.queuedMs(), breakdown.runMs(),
                    breakdown.seenMs(), result.failures(), unfinishedNote(result), startsNote(result),
                    result.floorP50Ms(),
                    plan.exactlyOnce() ? String.format(Locale.ROOT, ", plain and exactly-once hop %.2f ms", floorEos) : "",
                    result.hops(), result.flowFloorMs(), breakdown.engineMeansMs().isEmpty() ? "" : "; engine means "
                            + breakdown.engineMeansMs().entrySet().stream()
                            .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue()))
                            .collect(Collectors.joining(", ")) + " ms", brokerNote(breakdown.broker())));
            if (!result.keptUp((measuredTo - measuredFrom) / 1e9)) {
                progress.accept((refused > 0 ? "starts were refused" : "completions fell behind") + " at " + rate(rate)
                        + "/s: sweep stops");
                break;
            }
        }
        return results;
    }

    /** The embedded broker's requests an execution and their waits, when known. */
    private static String brokerNote(BrokerRequests broker) {
        return Double.isNaN(broker.perExecution()) ? "" : String.format(Locale.ROOT,
                "; broker %.1f requests an execution (%.1f produce), queued %.2f ms, produce %.2f ms, EndTxn %.2f ms,"
                + " TxnOffsetCommit %.2f ms", broker.perExecution(), broker.producePerExecution(), broker.queueMeanMs(),
                broker.produceMeanMs(), broker.endTxnMeanMs(), broker.txnOffsetCommitMeanMs());
    }

    /** How many of the failures had not ended after the drain: the engine was behind, it did not fail them. */
    private static String unfinishedNote(RateResult result) {
        return result.unfinished() == 0 ? ""
                : String.format(Locale.ROOT, " (%d of them not ended after the drain)", result.unfinished());
    }

    /** REST starts: how many were refused or never answered, and how long answers took. */
    private static String startsNote(RateResult result) {
        return Double.isNaN(result.answerP99Ms()) && result.refused() + result.unanswered() == 0 ? ""
                : String.format(Locale.ROOT, " refused %d unanswered %d answers p99 %.1f ms", result.refused(),
                        result.unanswered(), result.answerP99Ms());
    }

    /**
     * Starts executions at the warm-up's rate until the {@link WarmupGate} lets the measurements begin: the JIT compilers of
     * the engine and of this harness have settled, or the warm-up's maximum is reached.
     */
    private static void warmUp(Plan plan, Engine engine, Consumer<String> progress) throws InterruptedException {
        double rate = plan.warmupRate();
        progress.accept(String.format(Locale.ROOT, "warm-up: %s/s for %s to %s, until the JIT has settled", rate(rate),
                plan.warmup(), plan.warmupMax()));
        var gate = new WarmupGate(plan.warmup(), plan.warmupMax());
        var warmup = new LatencyWindow();
        Starter starter = engine.starter();
        long start = System.nanoTime();
        var schedule = new RateSchedule(start, rate);
        long next = 0;
        long sliceStart = start;
        long compiledBefore = compilationMillis(engine);
        double share;
        do {
            long sliceEnd = sliceStart + WARMUP_SLICE.toNanos();
            next = OpenLoop.run(schedule, next, sliceEnd, (i, due) -> starter.start(i, due, warmup));
            long compiled = compilationMillis(engine);
            share = compiled < 0 || compiledBefore < 0 ? -1 : (compiled - compiledBefore) * 1e6 / (sliceEnd - sliceStart);
            compiledBefore = compiled;
            sliceStart = sliceEnd;
            progress.accept(String.format(Locale.ROOT, "warm-up %.0f s: the JIT compiled %s of the last %d s",
                    (sliceStart - start) / 1e9, share < 0 ? "(unknown)" : Math.round(share * 100) + " %",
                    WARMUP_SLICE.toSeconds()));
        } while (!gate.done(sliceStart - start, share));
        drain(warmup, plan.drain());
    }

    /** JIT compile time so far of the engine and this harness, in milliseconds; -1 when the engine's is unknown. */
    private static long compilationMillis(Engine engine) {
        long engineMillis = engine.probe().compilationMillis();
        CompilationMXBean own = ManagementFactory.getCompilationMXBean();
        if (engineMillis < 0 || own == null || !own.isCompilationTimeMonitoringSupported()) {
            return -1;
        }
        return engineMillis + own.getTotalCompilationTime();
    }

    /** A rate for people: whole rates as they are, others (100/min is 1.67/s) to two decimals. */
    static String rate(double perSecond) {
        return perSecond == Math.rint(perSecond) ? String.format(Locale.ROOT, "%.0f", perSecond)
                : String.format(Locale.ROOT, "%.2f", perSecond);
    }

    /** Waits until every execution of the window ended, or the drain time is up. */
    private static void drain(LatencyWindow window, Duration drain) throws InterruptedException {
        long deadline = System.nanoTime() + drain.toNanos();
        while (window.completed() < window.expected() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
