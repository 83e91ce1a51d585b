package io.millrace.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One sweep against one running engine: a warm-up at the first rate, then a measurement window per rate, each
 * followed by a drain of its stragglers and a Kafka-floor measurement at the same rate. The sweep stops at the
 * first rate where completions fall behind the offered rate or executions fail.
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
    }

    record Plan(Workload workload, String guarantee, String settings, List<Double> rates, Duration warmup, Duration duration,
            Duration floorDuration, Duration drain) {
    }

    private Sweep() {
    }

    static List<RateResult> run(Plan plan, Engine engine, Consumer<String> progress) throws InterruptedException {
        var results = new ArrayList<RateResult>();
        if (!plan.warmup().isZero()) {
            progress.accept(String.format(java.util.Locale.ROOT, "warm-up: %.0f/s for %s", plan.rates().getFirst(), plan.warmup()));
            var warmup = new LatencyWindow();
            long start = System.nanoTime();
            Starter starter = engine.starter();
            OpenLoop.run(new RateSchedule(start, plan.rates().getFirst()), start + plan.warmup().toNanos(),
                    (i, due) -> starter.start(i, due, warmup));
            drain(warmup, plan.drain());
        }
        long nextIndex = 1_000_000_000L;
        for (double rate : plan.rates()) {
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
            long cpuBefore = engine.probe().cpuNanos();
            long completionsBefore = engine.tracker().completions();
            long measuredFrom = System.nanoTime();
            OpenLoop.run(schedule, next, end, send);
            nextIndex += 1_000_000_000L;
            long measuredTo = System.nanoTime();
            double achieved = (engine.tracker().completions() - completionsBefore) * 1e9 / (measuredTo - measuredFrom);
            long cpuAfter = engine.probe().cpuNanos();
            double cpuPct = cpuBefore < 0 || cpuAfter < 0 ? Double.NaN : (cpuAfter - cpuBefore) * 100.0 / (measuredTo - measuredFrom);
            drain(window, plan.drain());
            // read the window now: executions that end later (during the floor measurement) are missing, not late
            double p50 = window.percentileMs(50);
            double p90 = window.percentileMs(90);
            double p99 = window.percentileMs(99);
            double p999 = window.percentileMs(99.9);
            double max = window.maxMs();
            long failures = window.failuresAndMissing();
            double heapMb = engine.probe().liveHeapMb();
            double storeMb = engine.storeMb();
            LatencyWindow floor = engine.floor().measure(rate, plan.floorDuration());
            var result = new RateResult(plan.workload().name(), plan.guarantee(), plan.settings(), rate, achieved,
                    p50, p90, p99, p999, max, failures, floor.percentileMs(50), plan.workload().hops(), cpuPct, heapMb, storeMb);
            results.add(result);
            progress.accept(String.format(java.util.Locale.ROOT,
                    "%s %s %s offered %.0f/s achieved %.1f/s p50 %.1f ms p99 %.1f ms failures %d (floor p50 %.2f ms x %d hops)",
                    result.workload(), result.guarantee(), result.settings(), rate, achieved, result.p50Ms(), result.p99Ms(),
                    result.failures(), result.floorP50Ms(), result.hops()));
            if (!result.keptUp()) {
                progress.accept(String.format(java.util.Locale.ROOT, "completions fell behind at %.0f/s: sweep stops", rate));
                break;
            }
        }
        return results;
    }

    /** Waits until every execution of the window ended, or the drain time is up. */
    private static void drain(LatencyWindow window, Duration drain) throws InterruptedException {
        long deadline = System.nanoTime() + drain.toNanos();
        while (window.completed() < window.expected() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
