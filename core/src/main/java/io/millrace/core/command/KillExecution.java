package io.millrace.core.command;

import java.time.Instant;

/** Stop an execution: running task runs end KILLED and late results are ignored. */
public record KillExecution(String executionId, Instant requestedAt) implements Command {
}
