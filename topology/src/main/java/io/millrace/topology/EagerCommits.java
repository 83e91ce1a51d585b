package io.millrace.topology;

import io.millrace.config.MillraceConfig;

/**
 * Under exactly-once, an execution's terminal snapshot is visible to its readers only once the transaction that wrote
 * it commits, which Kafka Streams does every {@code commit.interval.ms}: on average half an interval after the
 * execution ended. This decides when ending an execution should ask for a commit at once instead. Only while the
 * executor is light and keeping up:
 * <ul>
 * <li>it ends fewer than {@code belowPerSecond} executions a second (counted over the last whole second, and the
 * current one so far). Each commit costs the stream thread a few blocking round trips and the broker a marker per
 * partition; above that rate, commits on top of the interval's lower the throughput the interval protects.</li>
 * <li>the record that ended the execution waited at most {@code maxInputAgeMillis} (the commit interval) between its
 * production and its processing. An executor that has fallen behind ends fewer executions a second than it is
 * offered, so the rate alone would let commits hold it back further; a record that waited longer than an interval
 * says it is behind, and then the interval's commits are the cheaper way to catch up.</li>
 * </ul>
 * One instance counts for every stream task of an executor instance (the processors of all its partitions), so the
 * rate is the instance's; it is thread-safe.
 */
final class EagerCommits {
    private static final long WINDOW_MILLIS = 1_000;

    private final int belowPerSecond;
    private final long maxInputAgeMillis;
    private long windowStart = Long.MIN_VALUE;
    private int inWindow;
    private int previousWindow;

    /**
     * @param belowPerSecond the end rate from which commits wait for the interval again; 0 turns eager commits off
     * @param maxInputAgeMillis how long the record that ended an execution may have waited for an eager commit
     */
    EagerCommits(int belowPerSecond, long maxInputAgeMillis) {
        this.belowPerSecond = belowPerSecond;
        this.maxInputAgeMillis = maxInputAgeMillis;
    }

    /** Off under at-least-once (records are visible when sent); a record may wait at most one commit interval. */
    static EagerCommits of(MillraceConfig config) {
        return new EagerCommits(config.exactlyOnce() ? config.eagerCommitBelowPerSecond() : 0, config.commitIntervalMs());
    }

    /**
     * Counts an execution that ended at {@code nowMillis}, decided on a record produced at {@code inputMillis};
     * true when a commit should be asked for at once.
     */
    synchronized boolean ended(long nowMillis, long inputMillis) {
        if (belowPerSecond == 0) {
            return false;
        }
        long elapsed = nowMillis - windowStart;
        if (windowStart == Long.MIN_VALUE || elapsed >= 2 * WINDOW_MILLIS || elapsed < 0) {
            previousWindow = 0; // a quiet second went by, or the clock went back
            windowStart = nowMillis;
            inWindow = 0;
        } else if (elapsed >= WINDOW_MILLIS) {
            previousWindow = inWindow;
            windowStart += WINDOW_MILLIS;
            inWindow = 0;
        }
        inWindow++;
        return previousWindow < belowPerSecond && inWindow <= belowPerSecond
                && nowMillis - inputMillis <= maxInputAgeMillis;
    }
}
