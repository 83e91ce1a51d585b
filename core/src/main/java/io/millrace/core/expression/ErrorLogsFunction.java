package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * {@code errorLogs()}: the execution's error log entries, as the engine put them under {@link Variables#ERROR_LOGS};
 * an empty list when it put none (never a missing-variable error).
 */
final class ErrorLogsFunction implements Function {

    @Override
    public List<String> getArgumentNames() {
        return List.of();
    }

    @Override
    public Object execute(Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        Object entries = context.getVariable(Variables.ERROR_LOGS);
        return entries != null ? entries : List.of();
    }
}
