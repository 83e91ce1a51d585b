package io.millrace.worker.task;

import io.millrace.core.execution.State;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How one task run attempt ended: SUCCESS, WARNING or FAILED, its outputs (Kestra's output names, values
 * JSON-compatible; empty when failed) and, only when FAILED, an error naming the task and the problem.
 */
public record TaskOutcome(State state, Map<String, Object> outputs, String error) {

    public TaskOutcome {
        Objects.requireNonNull(state, "state");
        if (state != State.SUCCESS && state != State.WARNING && state != State.FAILED) {
            throw new IllegalArgumentException("a task outcome is SUCCESS, WARNING or FAILED, not " + state);
        }
        if (state == State.FAILED && (error == null || error.isBlank())) {
            throw new IllegalArgumentException("a FAILED outcome needs an error");
        }
        if (state != State.FAILED && error != null) {
            throw new IllegalArgumentException("only a FAILED outcome has an error");
        }
        // LinkedHashMap: keeps the task's order and allows JSON null values
        outputs = outputs == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
    }

    public static TaskOutcome success(Map<String, Object> outputs) {
        return new TaskOutcome(State.SUCCESS, outputs, null);
    }

    public static TaskOutcome warning(Map<String, Object> outputs) {
        return new TaskOutcome(State.WARNING, outputs, null);
    }

    public static TaskOutcome failed(String error) {
        return new TaskOutcome(State.FAILED, Map.of(), error);
    }
}
