package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.millrace.core.execution.FailureText;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.LogRecord;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * An execution's log lines as Kestra's log API shows them: {@code GET /api/v1/logs/{executionId}} answers a JSON array
 * of entries ({@code namespace, flowId, taskId, executionId, taskRunId, attemptNumber, timestamp, level, thread,
 * message}), oldest first; {@code /download} answers them as text, one line each. Filters: {@code minLevel} (the
 * least level kept), {@code taskRunId}, {@code taskId} and {@code attempt}. A line's message is shown scrubbed
 * ({@link FailureText#scrub}): no stack frame and no Java class name reaches the API, not even from a line a worker
 * wrote before its own failures were told without them.
 */
final class LogJson {
    private static final List<String> LEVELS = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");

    private LogJson() {
    }

    /** The filter the query parameters ask for; a 400 naming the levels for an unknown {@code minLevel}. */
    static Predicate<LogRecord> filter(String minLevel, String taskRunId, String taskId, String attempt) {
        int least = minLevel == null ? 0 : LEVELS.indexOf(minLevel.trim().toUpperCase(Locale.ROOT));
        if (least < 0) {
            throw ApiException.badRequest("Query parameter 'minLevel' must be one of " + LEVELS + ", got '" + minLevel + "'");
        }
        Integer attemptNumber = attempt == null ? null : attempt(attempt);
        return line -> LEVELS.indexOf(line.getLevel()) >= least
                && (taskRunId == null || taskRunId.equals(line.getTaskRunId()))
                && (taskId == null || taskId.equals(line.getTaskId()))
                && (attemptNumber == null || Objects.equals(attemptNumber, line.getAttempt()));
    }

    private static int attempt(String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("Query parameter 'attempt' must be a number, got '" + value + "'");
        }
    }

    static ArrayNode json(List<LogRecord> lines) {
        ArrayNode all = Json.MAPPER.createArrayNode();
        for (LogRecord line : lines) {
            ObjectNode entry = all.addObject()
                    .put("namespace", line.getNamespace())
                    .put("flowId", line.getFlowId())
                    .put("taskId", line.getTaskId())
                    .put("executionId", line.getExecutionId())
                    .put("taskRunId", line.getTaskRunId());
            if (line.getAttempt() != null) {
                entry.put("attemptNumber", line.getAttempt());
            }
            entry.put("timestamp", line.getTimestamp().toString())
                    .put("level", line.getLevel())
                    .put("thread", line.getThread())
                    .put("message", FailureText.scrub(line.getMessage()));
        }
        return all;
    }

    static String text(List<LogRecord> lines) {
        var out = new StringBuilder();
        for (LogRecord line : lines) {
            out.append(line.getTimestamp()).append(' ').append(line.getLevel()).append(' ')
                    .append(FailureText.scrub(line.getMessage()))
                    .append('\n');
        }
        return out.toString();
    }
}
