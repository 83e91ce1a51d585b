package io.millrace.core.execution;

import java.util.Map;

/**
 * What started an execution, when a trigger did: the trigger's id and type as the flow declares them, and the
 * variables it gives the execution (read as {@code trigger.*}; a Kafka record's key and value, a schedule's date...).
 */
public record ExecutionTrigger(String id, String type, Map<String, Object> variables) {

    public ExecutionTrigger {
        variables = Maps.immutable(variables);
    }
}
