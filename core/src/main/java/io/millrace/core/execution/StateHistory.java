package io.millrace.core.execution;

import java.time.Instant;

/** One state an execution, task run or attempt passed through, and when. */
public record StateHistory(State state, Instant date) {
}
