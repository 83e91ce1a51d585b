package io.millrace.worker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.millrace.core.execution.State;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a worker's tasks waited and ran, by worker group and task type (a type this worker does not know counts as
 * {@code unknown}, so a flow cannot grow the tags), which tasks it abandoned and which records it dead-lettered. The
 * timers are looked up once per type, not per task. The abandoned and dead-letter meters exist from the start, at 0, so
 * an alert on them sees a worker that never needed them.
 */
final class WorkerMetrics {
    /** Bucket bounds of the queued and run time histograms: from a few milliseconds to an hour. */
    static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15),
            Duration.ofHours(1)};
    static final String UNKNOWN = "unknown";

    private final MeterRegistry registry;
    private final String group;
    private final Set<String> knownTypes;
    private final Map<String, Timer> queued = new ConcurrentHashMap<>();
    private final Map<String, Map<State, Timer>> ran = new ConcurrentHashMap<>();
    private final Counter abandoned;
    private final AtomicInteger abandonedRunning = new AtomicInteger();
    private final Counter unreadable;

    WorkerMetrics(MeterRegistry registry, String group, Set<String> knownTypes) {
        this.registry = registry;
        this.group = group;
        this.knownTypes = Set.copyOf(knownTypes);
        this.abandoned = Counter.builder("millrace.worker.tasks.abandoned")
                .description("Attempts whose thread did not stop when interrupted at their deadline, left to run on")
                .tag("group", group)
                .register(registry);
        Gauge.builder("millrace.worker.tasks.abandoned.running", abandonedRunning, AtomicInteger::get)
                .description("Abandoned attempts whose thread still runs now (each holds a thread and may spin a core)")
                .tag("group", group)
                .strongReference(true)
                .register(registry);
        this.unreadable = deadLetterCounter(TaskDeadLetters.UNREADABLE);
    }

    /** A task started on this worker {@code millis} after the executor dispatched it. */
    void started(String taskType, long millis) {
        String type = tag(taskType);
        Timer timer = queued.get(type);
        if (timer == null) {
            // the first task of its type only: the lambda captures, so it is not made for every task
            timer = queued.computeIfAbsent(type, t -> Timer.builder("millrace.worker.task.queued")
                    .description("From the executor's dispatch of a task to its start on a worker")
                    .tags("group", group, "type", t)
                    .serviceLevelObjectives(BUCKETS)
                    .register(registry));
        }
        timer.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    /** A task's attempt ended in {@code state} after running {@code nanos} on this worker. */
    void ended(String taskType, State state, long nanos) {
        String type = tag(taskType);
        var byState = ran.computeIfAbsent(type, t -> new ConcurrentHashMap<>());
        Timer timer = byState.get(state);
        if (timer == null) {
            timer = byState.computeIfAbsent(state, s -> Timer.builder("millrace.worker.task.duration")
                    .description("How long a task's attempt ran on a worker, by the state it ended in")
                    .tags("group", group, "type", type, "state", s.name())
                    .serviceLevelObjectives(BUCKETS)
                    .register(registry));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** An attempt's thread ignored its interruption; it counts as running until {@link #abandonedReturned}. */
    void abandoned() {
        abandoned.increment();
        abandonedRunning.incrementAndGet();
    }

    /** The thread of an abandoned attempt returned after all. */
    void abandonedReturned() {
        abandonedRunning.decrementAndGet();
    }

    /** Abandoned attempts whose threads still run. */
    int abandonedRunning() {
        return abandonedRunning.get();
    }

    /** A task record went to the dead-letter topic for {@code reason} (one of {@link TaskDeadLetters}' reasons). */
    void deadLettered(String reason) {
        (TaskDeadLetters.UNREADABLE.equals(reason) ? unreadable : deadLetterCounter(reason)).increment();
    }

    private Counter deadLetterCounter(String reason) {
        return Counter.builder("millrace.worker.dead.letters")
                .description("Task records this worker sent to the dead-letter topic, by why")
                .tags("group", group, "reason", reason)
                .register(registry);
    }

    private String tag(String taskType) {
        return taskType != null && knownTypes.contains(taskType) ? taskType : UNKNOWN;
    }
}
