package io.millrace.worker.task;

import io.millrace.core.expression.ExpressionException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Map;

/**
 * Reads and renders one task's properties; every problem becomes a {@link TaskException} naming the task
 * and the property.
 */
final class TaskProperties {

    private final TaskInvocation invocation;

    TaskProperties(TaskInvocation invocation) {
        this.invocation = invocation;
    }

    /** The raw (unrendered) value, or null when absent. */
    Object raw(String name) {
        return invocation.properties().get(name);
    }

    Object required(String name) throws TaskException {
        Object value = raw(name);
        if (value == null) {
            throw problem("property '" + name + "' is required");
        }
        return value;
    }

    /** Renders a scalar property as a string (numbers and booleans from YAML are taken as text); null if absent. */
    String string(String name) throws TaskException {
        Object value = raw(name);
        return value == null ? null : render(name, text(name, value));
    }

    String requiredString(String name) throws TaskException {
        return render(name, text(name, required(name)));
    }

    /** Renders one template that belongs to the property {@code name} (e.g. one message of a list). */
    String render(String name, String template) throws TaskException {
        try {
            return invocation.expressions().render(template, invocation.variables());
        } catch (ExpressionException e) {
            throw problem("property '" + name + "': " + e.getMessage(), e);
        }
    }

    /** Renders every string inside the property (maps and lists included); null if absent. */
    Object deep(String name) throws TaskException {
        return deep(name, raw(name));
    }

    /** Renders every string inside one part of a property, {@code name} saying which (e.g. "from[2]"). */
    Object deep(String name, Object value) throws TaskException {
        try {
            return invocation.expressions().renderDeep(value, invocation.variables());
        } catch (ExpressionException e) {
            throw problem("property '" + name + "': " + e.getMessage(), e);
        }
    }

    /** An ISO-8601 duration such as PT2S, rendered first; {@code fallback} when absent. */
    Duration duration(String name, Duration fallback) throws TaskException {
        String text = string(name);
        if (text == null) {
            if (fallback == null) {
                throw problem("property '" + name + "' is required");
            }
            return fallback;
        }
        return durationOf(name, text);
    }

    /** Parses an already rendered ISO-8601 duration that belongs to {@code name} (e.g. "options.readTimeout"). */
    Duration durationOf(String name, String text) throws TaskException {
        try {
            Duration duration = Duration.parse(text.trim());
            if (duration.isNegative()) {
                throw problem("property '" + name + "' must not be negative, got '" + text + "'");
            }
            return duration;
        } catch (DateTimeParseException e) {
            throw problem("property '" + name + "' is not an ISO-8601 duration such as PT2S: '" + text + "'", e);
        }
    }

    /** A boolean, rendered first when it is a string ("true" or "false", any case); {@code fallback} when absent. */
    boolean bool(String name, boolean fallback) throws TaskException {
        Object value = raw(name);
        if (value == null) {
            return fallback;
        }
        return booleanOf(name, value instanceof String ? string(name) : value);
    }

    /** An already rendered boolean value that belongs to {@code name}: a Boolean, or the text "true" or "false". */
    boolean booleanOf(String name, Object value) throws TaskException {
        if (value instanceof Boolean bool) {
            return bool;
        }
        String text = String.valueOf(value).trim();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw problem("property '" + name + "' must be true or false, got '" + value + "'");
    }

    /** A positive integer, rendered first when it is a string; {@code fallback} when absent. */
    int positiveInt(String name, int fallback) throws TaskException {
        Object value = raw(name);
        if (value == null) {
            return fallback;
        }
        String text = value instanceof Number number ? String.valueOf(number) : string(name);
        try {
            int parsed = Integer.parseInt(text.trim());
            if (parsed <= 0) {
                throw problem("property '" + name + "' must be positive, got " + parsed);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw problem("property '" + name + "' must be an integer, got '" + text + "'", e);
        }
    }

    TaskException problem(String problem) {
        return new TaskException(invocation.taskId(), problem);
    }

    TaskException problem(String problem, Throwable cause) {
        return new TaskException(invocation.taskId(), problem, cause);
    }

    private String text(String name, Object value) throws TaskException {
        if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
            throw problem("property '" + name + "' must be a string, got " + (value instanceof Map<?, ?> ? "an object" : "a list"));
        }
        return String.valueOf(value);
    }
}
