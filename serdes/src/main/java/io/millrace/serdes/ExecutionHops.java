package io.millrace.serdes;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.millrace.core.execution.LatencyBreakdown;
import java.time.Duration;

/**
 * Where ended executions' time went, as one timer per hop ({@code millrace.execution.hops}, tag {@code hop}): the
 * executor records each execution's {@link LatencyBreakdown} when it ends; the gateway records {@code end_to_read}
 * (the end's commit and the last snapshot's way to it) for each answer that waited for an end. A hop's sum over its
 * count is its mean per execution; its buckets give quantiles.
 */
public final class ExecutionHops {
    public static final String NAME = "millrace.execution.hops";
    private static final Duration[] BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5),
            Duration.ofSeconds(30), Duration.ofMinutes(5)};

    private final Timer queued;
    private final Timer toWorkers;
    private final Timer waitingForSlot;
    private final Timer running;
    private final Timer resultsBack;
    private final Timer outsideWorkers;

    /** The executor's hops. */
    public ExecutionHops(MeterRegistry registry) {
        queued = hop(registry, "queued");
        toWorkers = hop(registry, "to_workers");
        waitingForSlot = hop(registry, "waiting_for_slot");
        running = hop(registry, "running");
        resultsBack = hop(registry, "results_back");
        outsideWorkers = hop(registry, "outside_workers");
    }

    /** The gateway's hop: from an end to the gateway reading its last snapshot, for answers that waited for it. */
    public static Timer endToRead(MeterRegistry registry) {
        return hop(registry, "end_to_read");
    }

    /** Records an ended execution's hops; a hop it does not know (no request time) is left out. */
    public void record(LatencyBreakdown hops) {
        if (hops.queued() != null) {
            queued.record(hops.queued());
        }
        toWorkers.record(hops.toWorkers());
        waitingForSlot.record(hops.waitingForSlot());
        running.record(hops.running());
        resultsBack.record(hops.resultsBack());
        if (hops.outsideWorkers() != null) {
            outsideWorkers.record(hops.outsideWorkers());
        }
    }

    private static Timer hop(MeterRegistry registry, String hop) {
        return Timer.builder(NAME)
                .description("Where ended executions' time went, by hop: queued, to_workers, waiting_for_slot, running,"
                        + " results_back, outside_workers (the executor's); end_to_read (the gateway's)")
                .tag("hop", hop)
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }
}
