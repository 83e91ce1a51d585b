package io.millrace.core.command;

/**
 * What the executor is asked to do for one execution. Commands are imperative; the decider answers
 * each with events (past tense) and effects, or a rejection.
 */
public sealed interface Command permits CreateExecution, KillExecution, TaskResult, TimerFired, PauseExecution,
        ResumeExecution, SubflowEnded, RestartExecution {
    String executionId();
}
