package io.millrace.worker.task;

import java.util.Map;

/**
 * io.kestra.plugin.core.output.OutputValues: outputs {@code values}, the {@code values} map with every string
 * in it rendered (keys as written). Absent values give an empty map.
 */
final class OutputValuesTask implements RunnableTask {

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException {
        TaskProperties props = new TaskProperties(invocation);
        Object raw = props.raw("values");
        if (raw != null && !(raw instanceof Map<?, ?>)) {
            throw props.problem("property 'values' must be a map of names to values");
        }
        Object values = raw == null ? Map.of() : props.deep("values");
        return TaskOutcome.success(Map.of("values", values));
    }
}
