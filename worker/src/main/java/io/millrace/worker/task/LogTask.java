package io.millrace.worker.task;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * io.kestra.plugin.core.log.Log: renders {@code message} (a string, or a list of strings logged one by one)
 * and logs it at {@code level} (TRACE, DEBUG, INFO, WARN, ERROR; default INFO). No outputs.
 */
final class LogTask implements RunnableTask {

    private static final Set<String> LEVELS = Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException {
        TaskProperties props = new TaskProperties(invocation);
        String level = level(props);
        Object message = props.required("message");
        if (message instanceof Collection<?> messages) {
            // render all first: a broken message fails the task before anything is logged
            String[] rendered = new String[messages.size()];
            int i = 0;
            for (Object one : messages) {
                if (one instanceof Map<?, ?> || one instanceof Collection<?>) {
                    throw props.problem("property 'message' must be a string or a list of strings");
                }
                rendered[i++] = props.render("message", String.valueOf(one));
            }
            for (String line : rendered) {
                invocation.logger().log(level, line);
            }
        } else {
            invocation.logger().log(level, props.requiredString("message"));
        }
        return TaskOutcome.success(Map.of());
    }

    private static String level(TaskProperties props) throws TaskException {
        String level = props.string("level");
        if (level == null) {
            return "INFO";
        }
        String normalized = level.trim().toUpperCase(Locale.ROOT);
        if (!LEVELS.contains(normalized)) {
            throw props.problem("property 'level' must be one of TRACE, DEBUG, INFO, WARN, ERROR, got '" + level + "'");
        }
        return normalized;
    }
}
