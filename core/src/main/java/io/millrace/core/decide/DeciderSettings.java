package io.millrace.core.decide;

import java.time.Duration;

/**
 * @param lease how long a worker may hold an attempt without a result or heartbeat
 * @param maxLostAttempts how many attempts may be lost to dead workers before the task run fails
 * @param retention how long a finished execution is kept (its state, outputs and snapshot) before it is purged
 */
public record DeciderSettings(Duration lease, int maxLostAttempts, Duration retention) {

    public DeciderSettings {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("Expected a positive lease, but got " + lease);
        }
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("Expected a positive retention, but got " + retention);
        }
        if (maxLostAttempts < 1) {
            throw new IllegalArgumentException("Expected maxLostAttempts >= 1, but got " + maxLostAttempts);
        }
    }
}
