package io.millrace.core.command;

import java.time.Instant;

/** Hold a running execution PAUSED: the runs already started go on, no new one starts until it is resumed. */
public record PauseExecution(String executionId, Instant requestedAt) implements Command {
}
