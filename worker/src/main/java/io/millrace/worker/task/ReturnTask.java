package io.millrace.worker.task;

import java.util.Map;

/**
 * io.kestra.plugin.core.debug.Return: outputs {@code value}, the rendered {@code format}. Without a format
 * there is no {@code value} output (Kestra drops null outputs).
 */
final class ReturnTask implements RunnableTask {

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException {
        String value = new TaskProperties(invocation).string("format");
        return TaskOutcome.success(value == null ? Map.of() : Map.of("value", value));
    }
}
