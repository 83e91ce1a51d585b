package io.millrace.core.execution;

import java.time.Instant;
import java.util.Objects;

/**
 * When a worker had one attempt of a task, on the worker's clock: {@code received} when its poll returned the task,
 * {@code started} when a slot was free and the task began, {@code ended} when the task returned and its result was
 * made. With the executor's dates of the attempt (dispatched, result read) they split the attempt's time into hops;
 * across machines the hops hold the clocks' difference too.
 */
public record WorkerTimes(Instant received, Instant started, Instant ended) {
    public WorkerTimes {
        Objects.requireNonNull(received, "received");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(ended, "ended");
    }
}
