package io.millrace.core.flow;

import java.util.List;

/**
 * One task as declared in a flow: a {@link WorkerTask}, run by a worker, a {@link Flowable}, resolved by the
 * executor, or a {@link Subflow}, which the executor runs by starting another execution. {@code type} is canonical (a Kestra type name); {@code options} are what every task may carry.
 */
public sealed interface TaskDef permits WorkerTask, Flowable, Subflow {

    String DEFAULT_WORKER_GROUP = "default";

    String id();

    String type();

    TaskOptions options();

    default boolean disabled() {
        return options().disabled();
    }

    /** The tasks directly inside this one (every branch, errors and finally included); none for a worker task. */
    default List<TaskDef> children() {
        return List.of();
    }
}
