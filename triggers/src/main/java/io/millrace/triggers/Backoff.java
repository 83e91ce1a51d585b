package io.millrace.triggers;

import java.time.Duration;

/** The pause before a consumer that failed starts again: 1 s, doubled with each failure in a row, at most 30 s. */
final class Backoff {
    private static final Duration FIRST = Duration.ofSeconds(1);
    private static final Duration MAX = Duration.ofSeconds(30);

    private Duration next = FIRST;

    /** The pause the next failure waits. */
    Duration next() {
        return next;
    }

    /** After work that went well: the next failure waits the first pause again. */
    void reset() {
        next = FIRST;
    }

    /** Waits the pause, and doubles the next one; false if interrupted meanwhile. */
    boolean pause() {
        try {
            Thread.sleep(next);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        next = next.multipliedBy(2).compareTo(MAX) > 0 ? MAX : next.multipliedBy(2);
        return true;
    }
}
