package io.millrace.triggers;

import java.time.Duration;

/** The pause before a consumer that failed starts again: 1 s, doubled with each failure in a row, at most 30 s. */
final class Backoff {
    static final Duration FIRST = Duration.ofSeconds(1);
    static final Duration MAX = Duration.ofSeconds(30);

    private Duration next = FIRST;

    /** The pause the next failure waits. */
    Duration next() {
        return next;
    }

    /** After a long enough run without failure: the next failure waits the first pause again. */
    void reset() {
        next = FIRST;
    }

    /** A failure: answers the pause it waits, and doubles the next one. */
    Duration failed() {
        Duration pause = next;
        next = next.multipliedBy(2).compareTo(MAX) > 0 ? MAX : next.multipliedBy(2);
        return pause;
    }
}
