package io.millrace.core.flow;

import java.time.Duration;
import java.util.List;

/**
 * Holds the execution PAUSED until it is resumed: by a call (with {@code onResume} inputs, then the run's outputs), by
 * itself once {@code delay} has passed, or, with only a {@code timeout}, not at all: the run fails when the timeout
 * passes first. Once resumed it runs its (deprecated) nested {@code tasks} in order, if any. Delay and timeout count
 * from when the run paused; either may be null.
 */
public record Pause(String id, TaskOptions options, Duration delay, Duration timeout, List<InputDef> onResume,
        List<TaskDef> tasks, List<TaskDef> errors, List<TaskDef> finallyTasks) implements Flowable {

    public Pause {
        onResume = onResume == null ? null : List.copyOf(onResume);
        tasks = List.copyOf(tasks);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
    }

    @Override
    public String type() {
        return TaskTypes.PAUSE;
    }

    @Override
    public List<TaskDef> mainTasks() {
        return tasks;
    }

    /** How long after pausing the run moves on by itself (resumed by a delay, failed by a timeout); null: never. */
    public Duration wakeAfter() {
        return delay != null ? delay : timeout;
    }
}
