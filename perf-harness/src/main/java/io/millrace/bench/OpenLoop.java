package io.millrace.bench;

import java.util.concurrent.locks.LockSupport;

/** Sends on an open-loop schedule from the calling thread until the end time. */
final class OpenLoop {
    /** What to do when start {@code index} is due at {@code dueNanos}; must not block for long. */
    @FunctionalInterface
    interface Send {
        void send(long index, long dueNanos);
    }

    private OpenLoop() {
    }

    /** Runs {@code send} for every start due before {@code endNanos}; returns how many were sent. */
    static long run(RateSchedule schedule, long endNanos, Send send) {
        return run(schedule, 0, endNanos, send);
    }

    /**
     * Runs {@code send} for the starts from {@code fromIndex} that are due before {@code endNanos}; returns the index
     * of the next start.
     */
    static long run(RateSchedule schedule, long fromIndex, long endNanos, Send send) {
        long index = fromIndex;
        while (true) {
            long due = schedule.dueNanos(index);
            if (due >= endNanos) {
                return index;
            }
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            send.send(index, due);
            index++;
        }
    }
}
