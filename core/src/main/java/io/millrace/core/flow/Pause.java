package io.millrace.core.flow;

import java.time.Duration;
import java.util.List;
import java.util.Map;

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

    /**
     * The outputs of a resume with {@code given} inputs: {@code onResume}, its declared inputs resolved as a flow's
     * are (defaults filled in); none when it declares none, and then no input may be given.
     */
    public Map<String, Object> resumeOutputs(Map<String, Object> given) throws Inputs.InvalidInputsException {
        if (onResume == null) {
            Inputs.resolve(List.of(), given);
            return Map.of();
        }
        return Map.of("onResume", Inputs.resolve(onResume, given));
    }

    /** How long after pausing the run moves on by itself (resumed by a delay, failed by a timeout); null: never. */
    public Duration wakeAfter() {
        return delay != null ? delay : timeout;
    }
}
