package io.millrace.config;

import java.time.Duration;

/**
 * How long and how deep a worker lets one task go, whatever the task asks for: a flow is user input, and a task that
 * never ends would hold a slot, a thread and its lease for ever.
 *
 * @param taskMaxDuration the longest an attempt runs ({@code task-max-duration}); a task's own {@code timeout} applies
 *     when shorter. Past it the attempt ends FAILED and its slot is freed.
 * @param jsonataMaxDuration the longest one JSONata evaluation runs ({@code jsonata-max-duration}); a TransformValue's
 *     {@code timeout} applies when shorter
 * @param jsonataMaxDepth the deepest one JSONata evaluation nests ({@code jsonata-max-depth}); a TransformValue's
 *     {@code maxDepth} applies when smaller
 * @param maxAbandonedTasks abandoned attempts (tasks that ignored their interruption) still running on their threads at
 *     which the worker stops answering {@code /health/live} ({@code worker-max-abandoned-tasks}), so that it is
 *     restarted: Java cannot stop such a thread, and each may spin on a core; 0: never
 */
public record WorkerLimits(Duration taskMaxDuration, Duration jsonataMaxDuration, int jsonataMaxDepth,
        int maxAbandonedTasks) {
}
