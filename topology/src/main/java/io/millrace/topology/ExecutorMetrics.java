package io.millrace.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.millrace.core.command.Command;
import io.millrace.core.command.TimerFired;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Effect;
import io.millrace.core.decide.Rejection;
import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunRetrying;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.LatencyBreakdown;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.TaskDef;
import io.millrace.serdes.ExecutionHops;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The executor's own metrics, named for what an operator asks (Kafka Streams' metrics come on top): executions
 * started and ended by flow, how long they took and where that time went ({@link ExecutionHops}), task runs by type
 * and state, retries, lost leases and re-dispatches, rejected and dead-lettered commands, and how late timers fire.
 *
 * <p>Tags stay bounded: a flow (namespace and id), a task type, a state, a kind, a reason; never an execution or a
 * task run id. One instance serves one stream task's processor, on its stream thread; meters are found through maps
 * keyed by the tag values themselves, so counting a record builds no key and no string.
 */
final class ExecutorMetrics {
    /** Bucket bounds of the execution duration histogram, for {@code histogram_quantile}. */
    static final Duration[] DURATION_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
            Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofHours(1),
            Duration.ofHours(6)};
    /** Bucket bounds of timer lateness: a timer is due at a punctuation, some milliseconds late when all is well. */
    static final Duration[] LATENESS_BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30),
            Duration.ofMinutes(5)};
    static final String UNKNOWN = "unknown";

    private final MeterRegistry registry;
    private final Counter events;
    private final Counter reemitted;
    private final Counter eagerCommits;
    private final ExecutionHops hops;
    private final DeadLetterMeters deadLetters;
    private final Map<Class<?>, Counter> commands = new HashMap<>();
    private final Map<Rejection.Kind, Counter> rejections = new EnumMap<>(Rejection.Kind.class);
    private final Map<io.millrace.core.command.Timer.Kind, Timer> lateness =
            new EnumMap<>(io.millrace.core.command.Timer.Kind.class);
    /** By namespace, then flow id. */
    private final Map<String, Map<String, FlowMeters>> flows = new HashMap<>();
    /** By task type. */
    private final Map<String, TaskMeters> tasks = new HashMap<>();

    ExecutorMetrics(MeterRegistry registry, String topicPrefix) {
        this.registry = registry;
        this.events = Counter.builder("millrace.executor.events")
                .description("Events the executor's decisions produced").register(registry);
        this.reemitted = Counter.builder("millrace.executor.reemitted")
                .description("Steps sent again after a duplicate command (a replay after a crash, at-least-once)")
                .register(registry);
        this.eagerCommits = Counter.builder("millrace.executor.eager.commits")
                .description("Commits asked for because a decision sent what a committed reader waits for: an end,"
                        + " a command to the executor, a kill (exactly-once; at once or paced)")
                .register(registry);
        this.hops = new ExecutionHops(registry);
        this.deadLetters = new DeadLetterMeters(registry, topicPrefix).registerSources();
        for (Rejection.Kind kind : Rejection.Kind.values()) {
            rejections.put(kind, Counter.builder("millrace.executor.rejections")
                    .description("Commands that changed nothing, by kind (duplicate, stale: benign; invalid: dead-lettered)")
                    .tag("kind", kind.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry));
        }
        for (io.millrace.core.command.Timer.Kind kind : io.millrace.core.command.Timer.Kind.values()) {
            lateness.put(kind, Timer.builder("millrace.executor.timer.lateness")
                    .description("How long after its due time a timer fired, by kind")
                    .tag("kind", kind.name().toLowerCase(java.util.Locale.ROOT))
                    .serviceLevelObjectives(LATENESS_BUCKETS)
                    .register(registry));
        }
    }

    /**
     * A command decided: counts it, its events by what they say, and its re-dispatches.
     *
     * @param execution the execution after the decision, or null when there is none (purged, never created)
     * @param flow the flow of the execution, or null when unknown
     */
    void handled(Command command, Decision decision, Execution execution, Flow flow) {
        Counter counter = commands.get(command.getClass());
        if (counter == null) {
            counter = Counter.builder("millrace.executor.commands")
                    .description("Commands the executor decided, by type")
                    .tag("type", command.getClass().getSimpleName()).register(registry);
            commands.put(command.getClass(), counter);
        }
        counter.increment();
        List<Event> produced = decision.events();
        if (!produced.isEmpty()) {
            events.increment(produced.size());
            for (int i = 0; i < produced.size(); i++) {
                counted(produced.get(i), execution, flow);
            }
        }
        if (command instanceof TimerFired fired && fired.timer().kind() == io.millrace.core.command.Timer.Kind.LEASE) {
            for (Effect effect : decision.effects()) {
                if (effect instanceof Effect.DispatchTask dispatch) {
                    task(dispatch.task().type()).redispatches.increment();
                }
            }
        }
    }

    private void counted(Event event, Execution execution, Flow flow) {
        switch (event) {
            case ExecutionCreated created -> flow(created.namespace(), created.flowId()).started.increment();
            case ExecutionCompleted completed -> {
                if (execution != null) {
                    flow(execution.namespace(), execution.flowId()).ended(completed.state(),
                            Duration.between(execution.startDate(), completed.at()).toNanos());
                    hops.record(LatencyBreakdown.of(execution));
                }
            }
            case TaskRunCreated created -> task(typeOf(created.taskId(), flow)).created.increment();
            case TaskRunCompleted completed -> task(typeOf(run(execution, completed.taskRunId()), flow))
                    .ended(completed.state());
            case TaskRunRetrying retrying -> task(typeOf(run(execution, retrying.taskRunId()), flow)).retries.increment();
            case TaskRunAttemptEnded lost -> task(typeOf(run(execution, lost.taskRunId()), flow)).leaseExpiries.increment();
            default -> {
            }
        }
    }

    private static String run(Execution execution, String taskRunId) {
        TaskRun run = execution == null ? null : execution.runs().get(taskRunId);
        return run == null ? null : run.taskId();
    }

    private static String typeOf(String taskId, Flow flow) {
        if (taskId == null || flow == null) {
            return UNKNOWN;
        }
        TaskDef task = flow.task(taskId).orElse(null);
        return task == null ? UNKNOWN : task.type();
    }

    void rejected(Rejection rejection) {
        rejections.get(rejection.kind()).increment();
    }

    /** A timer of {@code kind} fired {@code lateMillis} after it was due. */
    void timerFired(io.millrace.core.command.Timer.Kind kind, long lateMillis) {
        lateness.get(kind).record(Math.max(0, lateMillis), TimeUnit.MILLISECONDS);
    }

    void reemitted() {
        reemitted.increment();
    }

    /** Ending an execution asked Kafka Streams for a commit at once (see {@link EagerCommits}). */
    void eagerCommit() {
        eagerCommits.increment();
    }

    /** @param topic where the record came from, or null for a timer's or a waiting create's command */
    void deadLettered(DeadLetterMeters.Reason reason, String topic) {
        deadLetters.count(reason, topic);
    }

    private FlowMeters flow(String namespace, String flowId) {
        Map<String, FlowMeters> byId = flows.computeIfAbsent(namespace, n -> new HashMap<>());
        FlowMeters meters = byId.get(flowId);
        if (meters == null) {
            meters = new FlowMeters(namespace, flowId);
            byId.put(flowId, meters);
        }
        return meters;
    }

    private TaskMeters task(String type) {
        TaskMeters meters = tasks.get(type);
        if (meters == null) {
            meters = new TaskMeters(type);
            tasks.put(type, meters);
        }
        return meters;
    }

    private final class FlowMeters {
        private final String namespace;
        private final String flowId;
        private final Counter started;
        private final Map<State, Counter> ended = new EnumMap<>(State.class);
        private final Map<State, Timer> durations = new EnumMap<>(State.class);

        FlowMeters(String namespace, String flowId) {
            this.namespace = namespace;
            this.flowId = flowId;
            this.started = Counter.builder("millrace.executions.started")
                    .description("Executions created, by flow").tags("namespace", namespace, "flow", flowId)
                    .register(registry);
        }

        void ended(State state, long nanos) {
            Counter counter = ended.get(state);
            if (counter == null) {
                counter = Counter.builder("millrace.executions.ended")
                        .description("Executions that ended, by flow and final state")
                        .tags("namespace", namespace, "flow", flowId, "state", state.name())
                        .register(registry);
                ended.put(state, counter);
                durations.put(state, Timer.builder("millrace.execution.duration")
                        .description("From an execution's creation to its end, by flow and final state")
                        .tags("namespace", namespace, "flow", flowId, "state", state.name())
                        .serviceLevelObjectives(DURATION_BUCKETS)
                        .register(registry));
            }
            counter.increment();
            durations.get(state).record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        }
    }

    private final class TaskMeters {
        private final String type;
        private final Counter created;
        private final Counter retries;
        private final Counter leaseExpiries;
        private final Counter redispatches;
        private final Map<State, Counter> ended = new EnumMap<>(State.class);

        TaskMeters(String type) {
            this.type = type;
            // not "created": Prometheus reserves the _created suffix for its own series
            this.created = Counter.builder("millrace.task.runs.scheduled")
                    .description("Task runs created (scheduled to run), by task type").tag("type", type).register(registry);
            this.retries = Counter.builder("millrace.task.retries")
                    .description("Task runs that failed and will run again (their retry policy), by task type")
                    .tag("type", type).register(registry);
            this.leaseExpiries = Counter.builder("millrace.task.lease.expiries")
                    .description("Attempts lost: their worker sent no result or heartbeat within the lease")
                    .tag("type", type).register(registry);
            this.redispatches = Counter.builder("millrace.task.redispatches")
                    .description("Attempts dispatched again to the workers after a lease expired")
                    .tag("type", type).register(registry);
        }

        void ended(State state) {
            Counter counter = ended.get(state);
            if (counter == null) {
                counter = Counter.builder("millrace.task.runs.ended")
                        .description("Task runs that ended, by task type and final state")
                        .tags("type", type, "state", state.name()).register(registry);
                ended.put(state, counter);
            }
            counter.increment();
        }
    }
}
