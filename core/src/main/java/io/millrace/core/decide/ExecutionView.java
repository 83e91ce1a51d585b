package io.millrace.core.decide;

import io.millrace.core.execution.Execution;
import java.util.Map;
import java.util.Optional;

/** Read access to one execution's state and task outputs, as the decider sees them. */
public interface ExecutionView {
    Optional<Execution> execution();

    /** The outputs of a task run, or an empty map when it has none. */
    Map<String, Object> outputs(String taskRunId);
}
