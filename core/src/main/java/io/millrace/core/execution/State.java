package io.millrace.core.execution;

/** States of executions, task runs and attempts, with Kestra's names. */
public enum State {
    CREATED,
    RUNNING,
    PAUSED,
    RETRYING,
    KILLING,
    SUCCESS,
    WARNING,
    FAILED,
    KILLED,
    SKIPPED;

    public boolean isTerminal() {
        return switch (this) {
            case SUCCESS, WARNING, FAILED, KILLED, SKIPPED -> true;
            default -> false;
        };
    }

    public boolean isFailure() {
        return this == FAILED || this == KILLED;
    }
}
