package io.millrace.worker;

import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.task.TaskLogger;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** A task's log lines, through SLF4J (logger {@code io.millrace.task}), each naming execution, task and attempt. */
final class Slf4jTaskLogger implements TaskLogger {
    private static final Logger LOG = LoggerFactory.getLogger("io.millrace.task");

    private final String executionId;
    private final String taskId;
    private final int attempt;

    Slf4jTaskLogger(WorkerTaskRecord task) {
        this.executionId = task.getExecutionId();
        this.taskId = task.getTaskId();
        this.attempt = task.getAttempt();
    }

    @Override
    public void log(String level, String message) {
        LOG.atLevel(level(level)).log("[execution {} task {} attempt {}] {}", executionId, taskId, attempt, message);
    }

    /** Kestra's level names; anything else logs at INFO rather than being lost. */
    static Level level(String name) {
        if (name == null) {
            return Level.INFO;
        }
        return switch (name.trim().toUpperCase(Locale.ROOT)) {
            case "TRACE" -> Level.TRACE;
            case "DEBUG" -> Level.DEBUG;
            case "WARN", "WARNING" -> Level.WARN;
            case "ERROR" -> Level.ERROR;
            default -> Level.INFO;
        };
    }
}
