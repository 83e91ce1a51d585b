package io.millrace.core.command;

import java.time.Instant;

/**
 * Stop an execution: running task runs end KILLED and late results are ignored; with {@code cascade}, the executions
 * its running Subflow runs wait for are killed too (Kestra's {@code isOnKillCascade}, true unless told otherwise).
 */
public record KillExecution(String executionId, Instant requestedAt, boolean cascade) implements Command {
    /** A kill that reaches the subflows. */
    public KillExecution(String executionId, Instant requestedAt) {
        this(executionId, requestedAt, true);
    }
}
