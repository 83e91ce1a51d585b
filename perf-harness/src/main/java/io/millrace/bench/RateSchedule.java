package io.millrace.bench;

/**
 * Open-loop schedule: the i-th start is due at {@code origin + i / rate}, whatever happened to the earlier ones.
 * Latency is measured from the due time, so a sender or engine that falls behind shows up as latency instead of
 * silently lowering the rate (no coordinated omission).
 */
public final class RateSchedule {
    private final long originNanos;
    private final double intervalNanos;

    public RateSchedule(long originNanos, double perSecond) {
        if (!(perSecond > 0)) {
            throw new IllegalArgumentException("rate must be positive, got " + perSecond);
        }
        this.originNanos = originNanos;
        this.intervalNanos = 1e9 / perSecond;
    }

    /** When start number {@code index} (from 0) is due. */
    public long dueNanos(long index) {
        return originNanos + Math.round(index * intervalNanos);
    }

    /** How many starts are due strictly before {@code endNanos}. */
    public long countBefore(long endNanos) {
        if (endNanos <= originNanos) {
            return 0;
        }
        long n = (long) Math.ceil((endNanos - originNanos) / intervalNanos);
        // guard the rounding of dueNanos at the boundary
        while (n > 0 && dueNanos(n - 1) >= endNanos) {
            n--;
        }
        while (dueNanos(n) < endNanos) {
            n++;
        }
        return n;
    }
}
