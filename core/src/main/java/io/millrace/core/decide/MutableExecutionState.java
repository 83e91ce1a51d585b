package io.millrace.core.decide;

import io.millrace.core.execution.Execution;
import java.util.Map;

/**
 * Write access to one execution's state. Only appliers call it: state changes only by events.
 * Layout in the executor's stores: execution id → {@link Execution}; execution id + task run id → outputs.
 */
public interface MutableExecutionState extends ExecutionView {
    void putExecution(Execution execution);

    void putOutputs(String taskRunId, Map<String, Object> outputs);

    /** Removes the execution and the outputs of all its task runs. */
    void removeExecution();
}
