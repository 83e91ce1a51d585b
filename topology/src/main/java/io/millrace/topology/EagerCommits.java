package io.millrace.topology;

import io.millrace.config.MillraceConfig;

/**
 * Under exactly-once, an execution's terminal snapshot is visible to its readers only once the transaction that wrote
 * it commits, which Kafka Streams does every {@code commit.interval.ms}: on average half an interval after the
 * execution ended. This paces the commits an ending execution asks for sooner, as a group commit: a stream thread
 * commits at once when its last commit ended long enough ago, else as soon as it has, so the ends that come during a
 * commit and the work after it share the next one, and the batches grow with the load.
 *
 * <p>"Long enough" keeps a stream thread's commits (their blocking round trips to the broker) to at most
 * {@code maxPercent} of its time: after a commit that took {@code d}, the next asked-for one waits until
 * {@code d × (100 − maxPercent) / maxPercent} has passed since it ended (at 50, as long again as the commit took).
 * The duration is measured on the thread's own producer ({@link CommitClock}), so the pace follows what a commit
 * costs on this broker at this load; Kafka Streams asks a task's commit of the thread, whose one transaction holds all
 * of its tasks.
 *
 * <p>No commit is asked for an end decided on a record that waited more than {@code maxInputAgeMillis} (the commit
 * interval) between its production and its processing: an executor that has fallen behind catches up faster with the
 * interval's fewer, larger commits.
 *
 * <p>One instance serves every stream thread of an executor instance; it holds no state of its own.
 */
final class EagerCommits {
    /** {@link #askAt}'s answer when no commit is to be asked for. */
    static final long NEVER = Long.MAX_VALUE;

    private final int maxPercent;
    private final long maxInputAgeMillis;

    /**
     * @param maxPercent the most of a stream thread's time its commits may take for eager ones to be asked; 0 turns
     *         eager commits off
     * @param maxInputAgeMillis how long the record that ended an execution may have waited for an eager commit
     */
    EagerCommits(int maxPercent, long maxInputAgeMillis) {
        if (maxPercent < 0 || maxPercent > 100) {
            throw new IllegalArgumentException("Expected a percentage from 0 to 100, but got " + maxPercent);
        }
        this.maxPercent = maxPercent;
        this.maxInputAgeMillis = maxInputAgeMillis;
    }

    /** Off under at-least-once (records are visible when sent); a record may wait at most one commit interval. */
    static EagerCommits of(MillraceConfig config) {
        return new EagerCommits(config.exactlyOnce() ? config.eagerCommitMaxPercent() : 0, config.commitIntervalMs());
    }

    /**
     * When to ask for a commit for an execution that ended at {@code nowMillis}, decided on a record produced at
     * {@code inputMillis}, on the thread whose commits {@code clock} times: {@code nowMillis} for at once, a later time
     * to ask then, or {@link #NEVER}.
     */
    long askAt(long nowMillis, long inputMillis, CommitClock clock) {
        if (maxPercent == 0 || nowMillis - inputMillis > maxInputAgeMillis) {
            return NEVER;
        }
        if (clock.endedMillis() == CommitClock.NONE) {
            return nowMillis;
        }
        long pause = Math.ceilDiv(clock.durationMillis() * (100 - maxPercent), maxPercent);
        return Math.max(nowMillis, clock.endedMillis() + pause);
    }
}
