package io.millrace.bench;

import java.time.Duration;

/**
 * When a warm-up may end. A cold JVM spends its first minutes compiling: on 2 cores the JITs of the engine and the
 * harness kept one to two compiler threads busy for about two minutes at 25 executions/s, and latency fell 2× over
 * that time. So the warm-up runs for at least its minimum and then on, slice by slice, until the JIT compilers of
 * the engine and the harness spent less than {@link #SETTLED_SHARE} of a slice compiling, or its maximum is reached.
 */
final class WarmupGate {
    /** JIT compile time per wall-clock time (summed over the JVMs) below which the compilers count as settled. */
    static final double SETTLED_SHARE = 0.05;

    private final long minNanos;
    private final long maxNanos;

    WarmupGate(Duration min, Duration max) {
        this.minNanos = min.toNanos();
        this.maxNanos = Math.max(min.toNanos(), max.toNanos());
    }

    /**
     * @param elapsedNanos time since the warm-up began, at the end of the slice
     * @param compileShare JIT compile time during the slice divided by its length; negative when unknown
     */
    boolean done(long elapsedNanos, double compileShare) {
        if (elapsedNanos >= maxNanos) {
            return true;
        }
        return elapsedNanos >= minNanos && (compileShare < 0 || compileShare < SETTLED_SHARE);
    }
}
