package io.millrace.worker.task;

import java.util.Map;
import java.util.Set;

/**
 * io.kestra.plugin.core.execution.Fail: fails with the rendered {@code errorMessage} (default "Task failure").
 * With a {@code condition} it fails only when the rendered condition is truthy, and otherwise succeeds with
 * no outputs. The error message is rendered only when the task fails.
 */
final class FailTask implements RunnableTask {

    static final String DEFAULT_ERROR_MESSAGE = "Task failure";

    /** Kestra's falsy renderings, compared exactly: " false" or "FALSE" are truthy, as in Kestra. */
    private static final Set<String> FALSY = Set.of("false", "0", "-0", "");

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException {
        TaskProperties props = new TaskProperties(invocation);
        if (props.raw("condition") != null && !isTruthy(props.string("condition"))) {
            return TaskOutcome.success(Map.of());
        }
        String message = props.string("errorMessage");
        throw props.problem(message == null ? DEFAULT_ERROR_MESSAGE : message);
    }

    static boolean isTruthy(String rendered) {
        return rendered != null && !FALSY.contains(rendered);
    }
}
