package io.millrace.topology;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;

/**
 * {@code millrace_executor_creates_waiting} and {@code millrace_executor_executions_running}: the sums over the stream
 * tasks of this executor instance. Each task's processor {@link #open opens} its counts, sets them on its stream thread
 * and {@link #close closes} them when its task goes; a scrape reads them from another thread.
 */
final class PaceGauges {
    static final String WAITING = "millrace.executor.creates.waiting";
    static final String RUNNING = "millrace.executor.executions.running";

    private final Set<Counts> tasks = ConcurrentHashMap.newKeySet();

    /** Registers the gauges, replacing those of an executor built before in the same registry (a restart in-process). */
    PaceGauges(MeterRegistry registry) {
        register(registry, WAITING, "Creates read from commands that wait for a running execution to end"
                + " (max-running-executions), on this instance", c -> c.waiting);
        register(registry, RUNNING, "Executions running on this instance, as far as it has seen since it started",
                c -> c.running);
    }

    private void register(MeterRegistry registry, String name, String description, ToIntFunction<Counts> count) {
        Gauge previous = registry.find(name).gauge();
        if (previous != null) {
            registry.remove(previous);
        }
        Gauge.builder(name, this, gauges -> gauges.tasks.stream().mapToInt(count).sum())
                .description(description).strongReference(true).register(registry);
    }

    Counts open() {
        var counts = new Counts();
        tasks.add(counts);
        return counts;
    }

    void close(Counts counts) {
        tasks.remove(counts);
    }

    /** One stream task's counts. */
    static final class Counts {
        private volatile int waiting;
        private volatile int running;

        void set(int waitingCreates, int runningExecutions) {
            this.waiting = waitingCreates;
            this.running = runningExecutions;
        }
    }
}
