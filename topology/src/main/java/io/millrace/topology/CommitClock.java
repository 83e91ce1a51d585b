package io.millrace.topology;

/**
 * When a stream thread's last transaction commit ended and how long it took, as its producer saw it
 * ({@link CommitTimingProducer}): what {@link EagerCommits} paces that thread's next asked-for commit by. Each thread
 * has its own (its producer, its transaction); Kafka Streams calls the producer and the processors of a thread on that
 * thread only.
 */
final class CommitClock {
    static final long NONE = Long.MIN_VALUE;
    private static final ThreadLocal<CommitClock> THREADS = ThreadLocal.withInitial(CommitClock::new);

    private long startedNanos;
    private long durationMillis;
    private long endedMillis = NONE;

    /** The calling thread's. */
    static CommitClock ofThisThread() {
        return THREADS.get();
    }

    /** Forgets the calling thread's commits (tests that run on one thread). */
    static void forgetThisThread() {
        THREADS.remove();
    }

    /** A commit starts (its offsets are sent, then the commit), at {@code nanos}. */
    void committing(long nanos) {
        startedNanos = nanos;
    }

    /** The commit ended, at {@code nanos} and wall-clock {@code millis}. */
    void committed(long nanos, long millis) {
        durationMillis = Math.ceilDiv(Math.max(0, nanos - startedNanos), 1_000_000L);
        endedMillis = millis;
    }

    /** How long the last commit took, rounded up to a millisecond. */
    long durationMillis() {
        return durationMillis;
    }

    /** When the last commit ended (epoch millis), or {@link #NONE}. */
    long endedMillis() {
        return endedMillis;
    }
}
