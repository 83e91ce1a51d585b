package io.millrace.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only thread that touches the consumer. Hands each polled record to a {@link Starter} while a slot
 * (of {@code concurrency}) is free; when none is, the records of the last poll wait here and every
 * assigned partition is paused, but polling goes on so the consumer stays in its group. Offsets are
 * committed up to the first record whose slot is not yet done (see {@link PartitionOffsets}), at most every
 * {@link #COMMIT_INTERVAL}.
 */
final class PollLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(PollLoop.class);
    /** Idle poll: new records end it at once, so this only bounds how late completed offsets are committed. */
    private static final Duration POLL = Duration.ofMillis(100);
    /** Poll while every slot is taken: short, because a freed slot is only noticed between polls. */
    private static final Duration FULL_POLL = Duration.ofMillis(10);
    /**
     * Least time between two commits of completed offsets. Each commit is a broker request and a write to the offsets
     * log; committing after every task made them about one broker request in eight. A crash or rebalance runs again
     * the tasks of at most this long whose offsets were not committed (their results are duplicates the executor
     * ignores); revocation and stop commit at once.
     */
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(100);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    private static final long ERROR_BACKOFF_MS = 500;

    /**
     * Runs one record somewhere else; must call {@link Slot#done} exactly once, eventually. {@code received}: when the
     * poll that returned it ended.
     */
    interface Starter {
        void start(ConsumerRecord<String, byte[]> record, Instant received, Slot slot);
    }

    /** A record's claim on one of the concurrency slots. */
    interface Slot {
        /** Frees the slot; {@code finished}: the record needs no further work (its result was produced). */
        void done(boolean finished);
    }

    private record Finished(TopicPartition partition, PartitionOffsets offsets, long offset) {
    }

    private final Consumer<String, byte[]> consumer;
    private final String topic;
    private final int concurrency;
    private final Semaphore slots;
    private final Starter starter;
    private final Runnable stopTasks;
    private final Duration stopGrace;
    private final Queue<Finished> finished = new ConcurrentLinkedQueue<>();
    private final Map<TopicPartition, PartitionOffsets> offsets = new HashMap<>();
    private final Queue<Polled> waiting = new ArrayDeque<>();
    private final LongSupplier nanoTime;
    private long lastCommitNanos;
    private volatile boolean running = true;

    /**
     * @param stopTasks called on the way out: interrupts running tasks (their slots must still be done)
     * @param stopGrace how long to wait after that for slots to be done, before the last commit
     */
    PollLoop(Consumer<String, byte[]> consumer, String topic, int concurrency, Starter starter,
             Runnable stopTasks, Duration stopGrace) {
        this(consumer, topic, concurrency, starter, stopTasks, stopGrace, System::nanoTime);
    }

    /** @param nanoTime the clock that spaces commits, as {@link System#nanoTime()} */
    PollLoop(Consumer<String, byte[]> consumer, String topic, int concurrency, Starter starter,
             Runnable stopTasks, Duration stopGrace, LongSupplier nanoTime) {
        this.consumer = consumer;
        this.topic = topic;
        this.concurrency = concurrency;
        this.slots = new Semaphore(concurrency);
        this.starter = starter;
        this.stopTasks = stopTasks;
        this.stopGrace = stopGrace;
        this.nanoTime = nanoTime;
        this.lastCommitNanos = nanoTime.getAsLong() - COMMIT_INTERVAL.toNanos();
    }

    /** Slots taken by a task now (thread-safe; read by the metrics). */
    int busySlots() {
        return concurrency - slots.availablePermits();
    }

    /** Slots free for a task now (thread-safe; read by the metrics). */
    int freeSlots() {
        return slots.availablePermits();
    }

    /** Asks the loop to end; thread-safe. The loop then stops the tasks, commits and closes the consumer. */
    void stop() {
        running = false;
        consumer.wakeup();
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(List.of(topic), new Rebalance());
            while (running) {
                try {
                    step();
                } catch (WakeupException e) {
                    // stop() was called; the loop condition decides
                } catch (RuntimeException e) {
                    LOG.error("Polling {} failed; retrying", topic, e);
                    sleep(ERROR_BACKOFF_MS);
                }
            }
        } finally {
            shutDown();
        }
    }

    private void step() {
        applyFinished();
        commitAdvanced();
        dispatch();
        boolean full = full();
        if (full) {
            consumer.pause(consumer.assignment());
        } else if (!consumer.paused().isEmpty()) {
            consumer.resume(consumer.paused());
        }
        var records = consumer.poll(full ? FULL_POLL : POLL);
        Instant received = Instant.now();
        for (ConsumerRecord<String, byte[]> record : records) {
            offsets.computeIfAbsent(partition(record), p -> new PartitionOffsets()).received(record.offset());
            waiting.add(new Polled(record, received));
        }
        dispatch();
    }

    private boolean full() {
        return !waiting.isEmpty() || slots.availablePermits() == 0;
    }

    private void dispatch() {
        while (!waiting.isEmpty() && slots.tryAcquire()) {
            Polled polled = waiting.poll();
            ConsumerRecord<String, byte[]> record = polled.record();
            TopicPartition partition = partition(record);
            Slot slot = slotFor(partition, offsets.get(partition), record.offset());
            try {
                starter.start(record, polled.received(), slot);
            } catch (RuntimeException e) {
                // e.g. rejected while stopping: the record stays uncommitted, a restart runs it
                LOG.warn("Could not start the task at {}@{}", partition, record.offset(), e);
                slot.done(false);
            }
        }
    }

    private Slot slotFor(TopicPartition partition, PartitionOffsets tracker, long offset) {
        AtomicBoolean once = new AtomicBoolean();
        return done -> {
            if (once.compareAndSet(false, true)) {
                if (done) {
                    finished.add(new Finished(partition, tracker, offset));
                }
                slots.release();
            }
        };
    }

    /** Applies what task threads reported, ignoring records of partitions this consumer has since lost. */
    private void applyFinished() {
        for (Finished f; (f = finished.poll()) != null; ) {
            if (offsets.get(f.partition()) == f.offsets()) {
                f.offsets().done(f.offset());
            }
        }
    }

    private void commitAdvanced() {
        long now = nanoTime.getAsLong();
        if (now - lastCommitNanos < COMMIT_INTERVAL.toNanos()) {
            return;
        }
        var advanced = new HashMap<TopicPartition, OffsetAndMetadata>();
        offsets.forEach((partition, tracker) ->
                tracker.advance().ifPresent(position -> advanced.put(partition, new OffsetAndMetadata(position))));
        if (!advanced.isEmpty()) {
            lastCommitNanos = now;
            consumer.commitAsync(advanced, (committed, e) -> {
                if (e != null) {
                    LOG.warn("Committing task offsets {} failed; a later commit covers them", committed, e);
                }
            });
        }
    }

    private void commitNow(Collection<TopicPartition> partitions) {
        var positions = new HashMap<TopicPartition, OffsetAndMetadata>();
        for (TopicPartition partition : partitions) {
            PartitionOffsets tracker = offsets.get(partition);
            if (tracker != null && tracker.position() >= 0) {
                positions.put(partition, new OffsetAndMetadata(tracker.position()));
            }
        }
        if (positions.isEmpty()) {
            return;
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                consumer.commitSync(positions, COMMIT_TIMEOUT);
                return;
            } catch (WakeupException e) {
                // a stop() that arrived outside poll(): it is one-shot, so retrying commits
            } catch (RuntimeException e) {
                LOG.warn("Committing task offsets {} failed; those tasks may run again", positions, e);
                return;
            }
        }
    }

    private void forget(Collection<TopicPartition> partitions) {
        offsets.keySet().removeAll(partitions);
        waiting.removeIf(polled -> partitions.contains(partition(polled.record())));
    }

    private void shutDown() {
        try {
            waiting.clear();
            stopTasks.run();
            if (slots.tryAcquire(concurrency, stopGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                slots.release(concurrency);
            } else {
                LOG.warn("Some tasks did not end within {}; their records stay uncommitted", stopGrace);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            applyFinished();
            commitNow(offsets.keySet());
            try {
                consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
            } catch (RuntimeException e) {
                LOG.warn("Closing the task consumer failed", e);
            }
        }
    }

    private static TopicPartition partition(ConsumerRecord<?, ?> record) {
        return new TopicPartition(record.topic(), record.partition());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Called from within poll(), on the poll thread. */
    /** A record polled and waiting for a slot, and when its poll ended. */
    private record Polled(ConsumerRecord<String, byte[]> record, Instant received) {
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // Tasks still running go on; their results still count, their offsets are the next owner's.
            applyFinished();
            commitNow(partitions);
            forget(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (full()) {
                consumer.pause(partitions);
            }
        }
    }
}
