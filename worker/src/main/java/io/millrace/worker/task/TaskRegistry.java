package io.millrace.worker.task;

import io.millrace.serdes.HttpTargets;
import io.millrace.config.MillraceConfig;
import io.millrace.config.WorkerLimits;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.FlowKafkaReach;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the implementation of a runnable task type, by Kestra name or alias; a type added with {@link #with} is found
 * by exactly its name. Immutable, thread-safe.
 */
public final class TaskRegistry {

    private static final TaskRegistry STANDARD = forStandalone(MillraceConfig.defaults());

    private final Map<String, RunnableTask> byType;

    private TaskRegistry(Map<String, RunnableTask> byType) {
        this.byType = Map.copyOf(byType);
    }

    /** The built-in tasks as standalone runs them under the default settings. */
    public static TaskRegistry standard() {
        return STANDARD;
    }

    /** The built-in tasks of a worker role: {@code http.Request} reaches what {@link HttpTargets#forRole} allows. */
    public static TaskRegistry forRole(MillraceConfig config) {
        return standard(config.workerLimits(), HttpTargets.forRole(config), FlowKafkaReach.of(config));
    }

    /** The built-in tasks of standalone: {@code http.Request} reaches what {@link HttpTargets#forStandalone} allows. */
    public static TaskRegistry forStandalone(MillraceConfig config) {
        return standard(config.workerLimits(), HttpTargets.forStandalone(config), FlowKafkaReach.of(config));
    }

    /**
     * The built-in tasks, one per type in {@link TaskTypes#RUNNABLE}, JSONata bounded by {@code limits}, HTTP requests
     * by {@code targets}, Kafka settings by {@code kafka}.
     */
    static TaskRegistry standard(WorkerLimits limits, HttpTargets targets, FlowKafkaReach kafka) {
        return new TaskRegistry(Map.of(
                TaskTypes.LOG, new LogTask(),
                TaskTypes.RETURN, new ReturnTask(),
                TaskTypes.OUTPUT_VALUES, new OutputValuesTask(),
                TaskTypes.SLEEP, new SleepTask(),
                TaskTypes.TRANSFORM_VALUE, new TransformValueTask(limits.jsonataMaxDuration(), limits.jsonataMaxDepth()),
                TaskTypes.FAIL, new FailTask(),
                TaskTypes.HTTP_REQUEST, new HttpRequestTask(targets, null),
                TaskTypes.KAFKA_PRODUCE, new ProduceTask(kafka)));
    }

    /** This registry and {@code task} under {@code type} (not a Kestra type: a test's own, say). */
    public TaskRegistry with(String type, RunnableTask task) {
        if (TaskTypes.canonical(type).isPresent()) {
            throw new IllegalArgumentException("Expected a type of its own, but '" + type + "' is a Kestra type");
        }
        var types = new HashMap<>(byType);
        types.put(type, task);
        return new TaskRegistry(types);
    }

    /** The task for a type written in a flow (a Kestra name or an alias, or a type added by {@link #with}), if any. */
    public Optional<RunnableTask> find(String type) {
        return type == null ? Optional.empty() : Optional.ofNullable(byType.get(TaskTypes.canonical(type).orElse(type)));
    }

    /** The (canonical) type names this registry implements. */
    public Set<String> types() {
        return byType.keySet();
    }
}
