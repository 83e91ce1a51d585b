package io.millrace.worker.task;

/** Where a task's own log lines go (Kestra's task logs). Levels: TRACE, DEBUG, INFO, WARN, ERROR. */
@FunctionalInterface
public interface TaskLogger {
    void log(String level, String message);
}
