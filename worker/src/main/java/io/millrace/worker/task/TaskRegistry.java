package io.millrace.worker.task;

import io.millrace.config.MillraceConfig;
import io.millrace.config.WorkerLimits;
import io.millrace.core.flow.TaskTypes;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the implementation of a runnable task type, by Kestra name or alias; a type added with {@link #with} is found
 * by exactly its name. Immutable, thread-safe.
 */
public final class TaskRegistry {

    private static final TaskRegistry STANDARD = standard(MillraceConfig.defaults().workerLimits());

    private final Map<String, RunnableTask> byType;

    private TaskRegistry(Map<String, RunnableTask> byType) {
        this.byType = Map.copyOf(byType);
    }

    /** The built-in tasks under the default worker limits. */
    public static TaskRegistry standard() {
        return STANDARD;
    }

    /** The built-in tasks, one per type in {@link TaskTypes#RUNNABLE}, JSONata bounded by {@code limits}. */
    public static TaskRegistry standard(WorkerLimits limits) {
        return new TaskRegistry(Map.of(
                TaskTypes.LOG, new LogTask(),
                TaskTypes.RETURN, new ReturnTask(),
                TaskTypes.OUTPUT_VALUES, new OutputValuesTask(),
                TaskTypes.SLEEP, new SleepTask(),
                TaskTypes.TRANSFORM_VALUE, new TransformValueTask(limits.jsonataMaxDuration(), limits.jsonataMaxDepth()),
                TaskTypes.FAIL, new FailTask(),
                TaskTypes.HTTP_REQUEST, new HttpRequestTask(),
                TaskTypes.KAFKA_PRODUCE, new ProduceTask()));
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
