package io.millrace.core.decide;

import io.millrace.core.execution.Execution;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** A {@link MutableExecutionState} on plain maps: for replays, tests and tools. */
public final class InMemoryExecutionState implements MutableExecutionState {
    private Execution execution;
    private final Map<String, Map<String, Object>> outputs = new HashMap<>();

    @Override
    public Optional<Execution> execution() {
        return Optional.ofNullable(execution);
    }

    @Override
    public Map<String, Object> outputs(String taskRunId) {
        return outputs.getOrDefault(taskRunId, Map.of());
    }

    @Override
    public void putExecution(Execution value) {
        this.execution = value;
    }

    @Override
    public void putOutputs(String taskRunId, Map<String, Object> value) {
        outputs.put(taskRunId, value);
    }

    @Override
    public void removeExecution() {
        execution = null;
        outputs.clear();
    }

    public Map<String, Map<String, Object>> allOutputs() {
        return Map.copyOf(outputs);
    }
}
