package io.millrace.worker.task;

import io.millrace.core.expression.Expressions;

import java.util.Map;
import java.util.Objects;

/**
 * Everything a task run needs: its id and type as written in the flow, its raw (unrendered) properties
 * from the flow YAML, the variables expressions see (see {@link io.millrace.core.expression.Variables}),
 * the shared renderer and the task's logger.
 */
public record TaskInvocation(String taskId, String type, Map<String, Object> properties, Map<String, Object> variables,
                             Expressions expressions, TaskLogger logger) {

    public TaskInvocation {
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(expressions, "expressions");
        Objects.requireNonNull(logger, "logger");
        properties = properties == null ? Map.of() : properties;
        variables = variables == null ? Map.of() : variables;
    }
}
