package io.millrace.core.flow;

import java.time.Duration;
import java.time.Instant;

/**
 * When a failed run is tried again, and after how long. {@code maxAttempt} counts every attempt, the first
 * included; {@code maxAttempt} and {@code maxDuration} may each be null (no bound), never both.
 *
 * @param interval constant: the wait; exponential: the first wait
 * @param maxInterval exponential and random: the longest wait
 * @param delayFactor exponential: each wait is the previous one times this
 * @param minInterval random: the shortest wait
 * @param maxDuration no attempt starts later than this after the first one started
 * @param warningOnRetry a run that succeeds after a retry ends WARNING
 * @param behavior RETRY_FAILED_TASK: the failed run gets another attempt; CREATE_NEW_EXECUTION: the execution ends
 *     RETRIED and a new execution of the flow starts, the attempts counting the executions
 */
public record RetryPolicy(
        Type type,
        Duration interval,
        Duration maxInterval,
        double delayFactor,
        Duration minInterval,
        Integer maxAttempt,
        Duration maxDuration,
        boolean warningOnRetry,
        Behavior behavior) {

    public enum Type { CONSTANT, EXPONENTIAL, RANDOM }

    public enum Behavior { RETRY_FAILED_TASK, CREATE_NEW_EXECUTION }

    /**
     * When attempt {@code failed + 1} starts, or null when there is none: the attempts or the duration are used up.
     *
     * @param failed the attempts made so far (all failed)
     * @param firstStart when the first attempt started
     * @param seed picks the random wait, so deciding again picks the same
     */
    public Instant nextAttemptAt(int failed, Instant firstStart, Instant now, long seed) {
        if (maxAttempt != null && failed >= maxAttempt) {
            return null;
        }
        Instant at = now.plus(delay(failed, seed));
        if (maxDuration != null && at.isAfter(firstStart.plus(maxDuration))) {
            return null;
        }
        return at;
    }

    /** The wait after the {@code failed}-th failed attempt. */
    Duration delay(int failed, long seed) {
        return switch (type) {
            case CONSTANT -> interval;
            case EXPONENTIAL -> {
                double millis = interval.toMillis() * Math.pow(delayFactor, Math.max(0, failed - 1));
                long capped = (long) Math.min(millis, maxInterval == null ? Long.MAX_VALUE : maxInterval.toMillis());
                yield Duration.ofMillis(capped);
            }
            case RANDOM -> {
                long min = minInterval.toMillis();
                long span = Math.max(0, maxInterval.toMillis() - min);
                yield Duration.ofMillis(min + (span == 0 ? 0 : Math.floorMod(mix(seed + failed), span + 1)));
            }
        };
    }

    /** A 64-bit mix (SplitMix64's finalizer): spreads a seed over the range. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
