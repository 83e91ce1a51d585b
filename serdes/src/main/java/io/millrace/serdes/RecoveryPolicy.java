package io.millrace.serdes;

import java.time.Duration;

/**
 * How long a role waits before it starts again what failed: a stream thread that died, or a Kafka Streams client
 * rebuilt on fresh local state. The first failure waits {@code firstPause}; each failure within {@code quietPeriod} of
 * the one before waits twice as long as that one did, at most {@code maxPause}; after a quiet period the next failure
 * waits {@code firstPause} again. So a poison that kills a thread every time costs a few attempts a minute, not a
 * hot loop, while a one-off failure is recovered from at once.
 */
public record RecoveryPolicy(Duration firstPause, Duration maxPause, Duration quietPeriod) {
    /** 100 ms, doubled up to 30 s, started over after a quiet minute (docs/LIMITS.md, "Recovery"). */
    public static final RecoveryPolicy DEFAULT = new RecoveryPolicy(Duration.ofMillis(100), Duration.ofSeconds(30),
            Duration.ofMinutes(1));

    public RecoveryPolicy {
        if (firstPause.isNegative() || maxPause.compareTo(firstPause) < 0 || quietPeriod.isNegative()) {
            throw new IllegalArgumentException("Expected 0 <= firstPause <= maxPause and quietPeriod >= 0, but got "
                    + firstPause + ", " + maxPause + ", " + quietPeriod);
        }
    }
}
