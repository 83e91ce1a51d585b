package io.millrace.core.command;

/**
 * What the executor is asked to do for one execution. Commands are imperative; the decider answers
 * each with events (past tense) and effects, or a rejection.
 */
public sealed interface Command permits CreateExecution, KillExecution, TaskResult, TimerFired, PauseExecution,
        ResumeExecution, SubflowEnded, RestartExecution, SlotCommand, SlotAnswer {
    String executionId();

    /** The record key: where the command is decided. An execution's id, but for a {@link SlotCommand}. */
    default String key() {
        return executionId();
    }
}
