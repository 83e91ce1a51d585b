package io.millrace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How often the poll loop commits completed offsets. A unit test of the loop alone: Kafka's in-memory
 * {@link MockConsumer} stands in for the consumer, and a hand-moved clock decides when a commit is due; the loop
 * against a real broker is covered by {@link WorkerTest}.
 */
class PollLoopCommitTest {
    private static final String TOPIC = "tasks";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

    private final AtomicLong clock = new AtomicLong();
    private final AtomicInteger commits = new AtomicInteger();
    private final AtomicLong committed = new AtomicLong(-1);
    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest") {
        @Override
        public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
            commits.incrementAndGet();
            committed.set(offsets.get(PARTITION).offset());
            super.commitAsync(offsets, callback);
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            commits.incrementAndGet();
            committed.set(offsets.get(PARTITION).offset());
            super.commitSync(offsets, timeout);
        }
    };
    private final PollLoop loop = new PollLoop(consumer, TOPIC, 8, (record, received, slot) -> slot.done(true), () -> { },
            Duration.ofSeconds(1), clock::get);
    private final Thread thread = Thread.ofPlatform().name("poll-loop-test").start(loop);

    @AfterEach
    void stop() throws InterruptedException {
        if (thread.isAlive()) {
            loop.stop();
            thread.join(5_000);
        }
    }

    @Test
    void shouldCommitCompletedTasksAtMostOncePerInterval() throws InterruptedException {
        // given
        threeTasksDoneAndCommitted();
        int commitsBefore = commits.get();

        // when: three more are done within the same interval, and the loop goes on polling
        consumer.schedulePollTask(() -> addRecords(3, 3));
        awaitPolls(3);

        // then: not committed yet
        assertThat(committed()).isEqualTo(3);
        assertThat(commits.get()).isEqualTo(commitsBefore);

        // when: the interval has passed
        clock.addAndGet(PollLoop.COMMIT_INTERVAL.toNanos());

        // then: one commit covers all three
        eventually(() -> committed() == 6);
        assertThat(commits.get()).isEqualTo(commitsBefore + 1);
    }

    @Test
    void shouldCommitWhatIsDoneWhenStopping() throws InterruptedException {
        // given
        threeTasksDoneAndCommitted();
        consumer.schedulePollTask(() -> addRecords(3, 2));
        awaitPolls(3);

        // when: stopped within the interval
        loop.stop();
        thread.join(5_000);

        // then
        assertThat(thread.isAlive()).isFalse();
        assertThat(committed()).isEqualTo(5);
    }

    /** Assigns the partition and hands the loop three tasks, done as soon as they start; waits for their commit. */
    private void threeTasksDoneAndCommitted() throws InterruptedException {
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            addRecords(0, 3);
        });
        eventually(() -> committed() == 3);
    }

    private void addRecords(long from, int count) {
        for (long offset = from; offset < from + count; offset++) {
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset, "execution-" + offset, new byte[0]));
        }
    }

    /** Waits until the loop has polled {@code polls} more times, so it has had every chance to commit. */
    private void awaitPolls(int polls) throws InterruptedException {
        var polled = new CountDownLatch(polls);
        for (int i = 0; i < polls; i++) {
            consumer.schedulePollTask(polled::countDown);
        }
        assertThat(polled.await(5, TimeUnit.SECONDS)).isTrue();
    }

    private long committed() {
        return committed.get();
    }

    private static void eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition still false after 5 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
