package io.millrace.worker.task;

import io.millrace.core.execution.FailureText;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a task run's error and log lines say of a Java failure ({@link FailureText}): its message, and its kind in
 * words, never an exception's class name or stack trace. Those describe the worker, not the flow, and reach whoever
 * reads the execution or its logs; an unexpected failure goes to the worker's own log with its stack trace, under an
 * error id that the task run's error names, so an operator finds what a flow's author reports.
 */
public final class Failures {
    private static final Logger LOG = LoggerFactory.getLogger(Failures.class);

    private Failures() {
    }

    /**
     * Logs an unexpected failure of a task with its stack trace under a new error id, and answers the task run's
     * error: {@code Task 'x' failed unexpectedly: <message>; the worker's log has the details under error id <id>}.
     */
    public static String unexpected(String taskId, Throwable failure) {
        String id = errorId("Task '" + taskId + "' failed unexpectedly", failure);
        String message = failure.getMessage() == null ? kind(failure) : FailureText.scrub(failure.getMessage());
        return "Task '" + taskId + "' failed unexpectedly: " + message + "; the worker's log has the details under"
                + " error id " + id;
    }

    /** Logs {@code what} (with the failure's stack trace, if any) under a new error id and returns the id. */
    public static String errorId(String what, Throwable failure) {
        String id = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
        if (failure == null) {
            LOG.warn("Error id {}: {}", id, what);
        } else {
            LOG.error("Error id {}: {}", id, what, failure);
        }
        return id;
    }

    /** The failure's kind and message, with no class name ({@link FailureText}): {@code unknown host: x}. */
    public static String describe(Throwable failure) {
        return FailureText.describe(failure);
    }

    /** The failure's kind in words ({@link FailureText#kind}). */
    public static String kind(Throwable failure) {
        return FailureText.kind(failure);
    }
}
