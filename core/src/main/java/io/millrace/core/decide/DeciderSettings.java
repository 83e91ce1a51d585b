package io.millrace.core.decide;

import java.time.Duration;

/**
 * @param lease how long a worker may hold an attempt without a result or heartbeat
 * @param maxLostAttempts how many attempts may be lost to dead workers before the task run fails
 */
public record DeciderSettings(Duration lease, int maxLostAttempts) {

    public DeciderSettings {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("Expected a positive lease, but got " + lease);
        }
        if (maxLostAttempts < 1) {
            throw new IllegalArgumentException("Expected maxLostAttempts >= 1, but got " + maxLostAttempts);
        }
    }
}
