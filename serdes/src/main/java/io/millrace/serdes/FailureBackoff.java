package io.millrace.serdes;

import java.time.Duration;

/** The pauses of one {@link RecoveryPolicy}, failure after failure; thread-safe (stream threads fail concurrently). */
final class FailureBackoff {
    private final RecoveryPolicy policy;
    private Duration last;
    private long lastFailureNanos;
    private int inARow;

    FailureBackoff(RecoveryPolicy policy) {
        this.policy = policy;
    }

    /** A failure at {@code nowNanos} ({@link System#nanoTime}): how long to wait before starting again. */
    synchronized Duration next(long nowNanos) {
        boolean quiet = last == null || nowNanos - lastFailureNanos > policy.quietPeriod().toNanos();
        if (quiet) {
            last = policy.firstPause();
            inARow = 1;
        } else {
            Duration doubled = last.multipliedBy(2);
            last = doubled.compareTo(policy.maxPause()) > 0 ? policy.maxPause() : doubled;
            inARow++;
        }
        lastFailureNanos = nowNanos;
        return last;
    }

    /** Failures so far without a quiet period between them, the last one included. */
    synchronized int inARow() {
        return inARow;
    }
}
