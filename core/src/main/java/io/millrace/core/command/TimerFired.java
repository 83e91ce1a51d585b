package io.millrace.core.command;

import java.time.Instant;

/** A timer came due; {@code at} is the wall-clock time it was noticed. */
public record TimerFired(Timer timer, Instant at) implements Command {
    @Override
    public String executionId() {
        return timer.executionId();
    }
}
