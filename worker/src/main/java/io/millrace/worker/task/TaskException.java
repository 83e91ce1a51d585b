package io.millrace.worker.task;

/** A task could not do its work; the message always starts with "Task '&lt;id&gt;': " and names the problem. */
public final class TaskException extends Exception {

    public TaskException(String taskId, String problem) {
        super("Task '" + taskId + "': " + problem);
    }

    public TaskException(String taskId, String problem, Throwable cause) {
        super("Task '" + taskId + "': " + problem, cause);
    }
}
