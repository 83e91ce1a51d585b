package io.millrace.core.command;

import java.time.Instant;

/**
 * Go on with a FAILED or KILLED execution from its failed runs: each starts again with a new attempt, what succeeded
 * is kept. A restart requested before the execution's last restart (sent twice) changes nothing.
 */
public record RestartExecution(String executionId, Instant requestedAt) implements Command {
}
