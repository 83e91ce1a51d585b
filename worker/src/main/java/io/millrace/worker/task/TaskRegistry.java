package io.millrace.worker.task;

import io.millrace.core.flow.TaskTypes;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Finds the implementation of a runnable task type, by Kestra name or alias. Immutable, thread-safe. */
public final class TaskRegistry {

    private static final TaskRegistry STANDARD = new TaskRegistry(Map.of(
            TaskTypes.LOG, new LogTask(),
            TaskTypes.RETURN, new ReturnTask(),
            TaskTypes.OUTPUT_VALUES, new OutputValuesTask(),
            TaskTypes.SLEEP, new SleepTask(),
            TaskTypes.TRANSFORM_VALUE, new TransformValueTask(),
            TaskTypes.FAIL, new FailTask(),
            TaskTypes.HTTP_REQUEST, new HttpRequestTask(),
            TaskTypes.KAFKA_PRODUCE, new ProduceTask()));

    private final Map<String, RunnableTask> byCanonicalType;

    private TaskRegistry(Map<String, RunnableTask> byCanonicalType) {
        this.byCanonicalType = Map.copyOf(byCanonicalType);
    }

    /** The built-in tasks: one per type in {@link TaskTypes#RUNNABLE}. */
    public static TaskRegistry standard() {
        return STANDARD;
    }

    /** The task for a type written in a flow (a Kestra name or an alias), if there is one. */
    public Optional<RunnableTask> find(String type) {
        return TaskTypes.canonical(type).map(byCanonicalType::get);
    }

    /** The canonical type names this registry implements. */
    public Set<String> types() {
        return byCanonicalType.keySet();
    }
}
