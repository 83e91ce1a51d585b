package io.millrace.core.event;

import java.time.Instant;

/**
 * Something that happened to one execution. Events are facts, in the past tense; folding them in
 * order with the appliers rebuilds the execution's state and task outputs.
 */
public sealed interface Event permits ExecutionCreated, ExecutionStateChanged, ExecutionCompleted, ExecutionPurged,
        TaskRunCreated, TaskRunAttemptStarted, TaskRunLeaseExtended, TaskRunAttemptEnded, TaskRunCompleted,
        TaskRunRetrying, TaskRunReset, TaskRunPaused, TaskRunResumed, ExecutionRestarted {
    Instant at();
}
