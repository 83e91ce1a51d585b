package io.millrace.core.decide;

import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.Flow;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds the variables an expression sees for an execution: inputs, outputs by task id, metadata. */
public final class Contexts {
    private Contexts() {
    }

    /** Outputs of the execution's task runs keyed by task id, in the order the runs were created. */
    public static Map<String, Map<String, Object>> outputsByTaskId(Execution execution, ExecutionView view) {
        var outputs = new LinkedHashMap<String, Map<String, Object>>();
        for (TaskRun run : execution.taskRuns()) {
            Map<String, Object> values = view.outputs(run.id());
            if (!values.isEmpty()) {
                outputs.put(run.taskId(), values);
            }
        }
        return outputs;
    }

    public static Map<String, Object> variables(Execution execution, ExecutionView view, Flow flow) {
        return builder(execution, view, flow).build();
    }

    /** The variables of an execution, to which a task's own ({@code task}, {@code taskrun}) may be added. */
    public static Variables.Builder builder(Execution execution, ExecutionView view, Flow flow) {
        return Variables.builder()
                .execution(execution.id(), execution.startDate())
                .flow(flow.namespace(), flow.id(), flow.revision())
                .inputs(execution.inputs())
                .outputs(outputsByTaskId(execution, view))
                .labels(execution.labels());
    }
}
