package io.millrace.worker;

import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * The commit position of one assigned partition: the lowest offset received but not yet done, or just
 * past the highest received when all are done. Records finish out of order; committing this position
 * never skips one that has no result yet. Used by the poll thread only.
 */
final class PartitionOffsets {
    private final TreeSet<Long> open = new TreeSet<>();
    private long next = -1;
    private long committed = -1;

    /** A record was polled (offsets arrive in increasing order). */
    void received(long offset) {
        open.add(offset);
        next = Math.max(next, offset + 1);
    }

    /** A record's result was produced (or the record can never have one). */
    void done(long offset) {
        open.remove(offset);
    }

    /** Where a restart should resume; -1 before any record was received. */
    long position() {
        return open.isEmpty() ? next : open.first();
    }

    /** The position, if it moved past what was last handed out for committing; marks it as handed out. */
    OptionalLong advance() {
        long position = position();
        if (position <= committed) {
            return OptionalLong.empty();
        }
        committed = position;
        return OptionalLong.of(position);
    }
}
