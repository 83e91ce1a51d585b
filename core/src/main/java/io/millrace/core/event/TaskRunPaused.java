package io.millrace.core.event;

import java.time.Instant;

/** A Pause task's run started waiting to be resumed: PAUSED, its attempt still open. */
public record TaskRunPaused(String taskRunId, Instant at) implements Event {
}
