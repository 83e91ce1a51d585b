package io.millrace.topology;

import io.millrace.core.command.Command;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.avro.TimerRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The timers store as a punctuation sees it: fires what is due, in due order, as {@link TimerFired} commands, and
 * keeps the {@link Wakeup} set for the earliest timer left.
 */
final class DueTimers {
    /** Bounds the work of one punctuation (and one transaction) after a long stop; the rest waits for the next. */
    static final int MAX_TIMERS_PER_PUNCTUATION = 500;
    /** The longest a fresh start lets leases that ran out wait for the results already on their way. */
    static final Duration MAX_LEASE_GRACE = Duration.ofSeconds(10);

    private final KeyValueStore<String, TimerRecord> timers;
    private final Wakeup wakeup;
    private final long leaseGraceUntil;
    private final ExecutorMetrics metrics;
    private final CountedDeadLetters deadLetters;
    private final BiConsumer<Command, SpecificRecord> handler;
    /**
     * Every timer due before this (epoch millis) has fired or was cancelled, and was deleted. Scans start here:
     * RocksDB keeps a deleted key as a tombstone until compaction, and timer keys sort by due time, so a scan from the
     * first key would step over every timer deleted since the last compaction, thousands of them under load.
     */
    private long firedBefore;

    /**
     * @param leaseGraceUntil until when (epoch millis) leases that ran out are not judged yet: a while after a fresh start
     * @param handler handles a fired timer, as the processor handles a command
     */
    DueTimers(KeyValueStore<String, TimerRecord> timers, Wakeup wakeup, long leaseGraceUntil, ExecutorMetrics metrics,
            CountedDeadLetters deadLetters, BiConsumer<Command, SpecificRecord> handler) {
        this.timers = timers;
        this.wakeup = wakeup;
        this.leaseGraceUntil = leaseGraceUntil;
        this.metrics = metrics;
        this.deadLetters = deadLetters;
        this.handler = handler;
    }

    /** How long after a fresh start ran-out leases wait: a third of the lease, at most {@link #MAX_LEASE_GRACE}. */
    static Duration leaseGrace(Duration lease) {
        Duration third = lease.dividedBy(3);
        return third.compareTo(MAX_LEASE_GRACE) < 0 ? third : MAX_LEASE_GRACE;
    }

    /** Deletes and fires the timers due by {@code wallClockMillis}, at most {@link #MAX_TIMERS_PER_PUNCTUATION}. */
    void fire(long wallClockMillis) {
        Instant now = Instant.ofEpochMilli(wallClockMillis);
        var due = new ArrayList<KeyValue<String, TimerRecord>>();
        try (KeyValueIterator<String, TimerRecord> it =
                     timers.range(TimerKeys.from(firedBefore), TimerKeys.upTo(wallClockMillis))) {
            while (it.hasNext() && due.size() < MAX_TIMERS_PER_PUNCTUATION) {
                due.add(it.next());
            }
        }
        // set before handling, which may store earlier timers; a scan that took all it found leaves nothing due by now
        if (due.size() < MAX_TIMERS_PER_PUNCTUATION) {
            firedBefore = wallClockMillis + 1;
        } else {
            firedBefore = due.getLast().value.getDueAt().toEpochMilli();
        }
        for (KeyValue<String, TimerRecord> entry : due) {
            fire(entry, now);
            // deleted once handled: with the store's cache off, at-least-once writes it through, and a crash between
            // its deletion and the state it led to would leave that state waiting for it for good
            timers.delete(entry.key);
        }
    }

    private void fire(KeyValue<String, TimerRecord> entry, Instant now) {
        Timer timer;
        try {
            timer = ExecutionMapper.fromRecord(entry.value);
        } catch (RuntimeException e) {
            deadLetters.send(entry.value.getExecutionId(), "Unreadable timer " + entry.key + ": " + e.getMessage(),
                    entry.value, DeadLetterMeters.Reason.UNREADABLE);
            return;
        }
        if (timer.kind() == Timer.Kind.LEASE && now.toEpochMilli() < leaseGraceUntil) {
            Timer later = new Timer(timer.executionId(), timer.kind(), timer.taskRunId(), timer.attempt(),
                    Instant.ofEpochMilli(leaseGraceUntil));
            timers.put(TimerKeys.of(later), ExecutionMapper.toRecord(later));
            stored(leaseGraceUntil);
            return;
        }
        metrics.timerFired(timer.kind(), now.toEpochMilli() - timer.dueAt().toEpochMilli());
        handler.accept(new TimerFired(timer, now), entry.value);
    }

    /** Told the due time (epoch millis) of every timer stored. */
    void stored(long dueMillis) {
        firedBefore = Math.min(firedBefore, dueMillis); // a clock that went back: scan from the new timer
        wakeup.by(dueMillis);
    }

    /** Schedules the next punctuation for the earliest timer, if there is one. */
    void wakeForNext() {
        try (KeyValueIterator<String, TimerRecord> first = timers.range(TimerKeys.from(firedBefore), null)) {
            if (first.hasNext()) {
                wakeup.by(first.next().value.getDueAt().toEpochMilli());
            }
        }
    }
}
