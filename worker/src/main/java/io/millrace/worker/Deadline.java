package io.millrace.worker;

import java.time.Duration;

/**
 * When an attempt must end and why: the task's own {@code timeout} when it has one no longer than the worker's
 * {@code task-max-duration}, else that limit. {@code reason} is what the FAILED result and the task's log say then.
 */
record Deadline(Duration after, String reason) {

    /** @param timeout the task's {@code timeout} property, or null */
    static Deadline of(Duration timeout, Duration taskMaxDuration) {
        if (timeout != null && timeout.compareTo(taskMaxDuration) <= 0) {
            return new Deadline(timeout, "Timeout after " + timeout);
        }
        String capped = timeout == null ? "" : " (shorter than its timeout " + timeout + ")";
        return new Deadline(taskMaxDuration, "Timeout after " + taskMaxDuration + ", the worker's limit task-max-duration"
                + capped);
    }
}
