package io.millrace.triggers;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one consumer loop of the triggers role, with its one failure policy. A {@link Reader} says what a round is (poll,
 * turn records into creates, commit); the loop runs rounds on a thread of its own until closed. Any failure of a round
 * (Kafka, a send, a commit, a lookup the reader cannot do now) is logged, counted ({@code millrace.trigger.restarts}),
 * and the consumer is closed and a new one started from the group's last commit after a {@link Backoff} pause (1 s,
 * doubled with each failure in a row, at most 30 s; a consumer that ran {@link #STEADY} before it failed waits 1 s again:
 * a send fails after the rounds that sent it went well, so a good round proves nothing). What one record does wrong is the
 * reader's to count and skip: it never throws for it, so a record never makes the loop go round forever. Closing wakes
 * the consumer, cuts a pause short, and waits for the thread.
 */
final class ConsumerLoop<K, V> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerLoop.class);
    private static final Duration JOIN = Duration.ofSeconds(10);
    /** A consumer that ran this long before it failed was a success: its failure waits the first pause again. */
    static final Duration STEADY = Duration.ofMinutes(1);

    /** What a loop does with its consumer. */
    interface Reader<K, V> {
        /** A new consumer (the first, or one after a failure): subscribe it; forget what the last one had in flight. */
        void started(KafkaConsumer<K, V> consumer) throws Exception;

        /** One round; answers how long to wait before the next (zero: at once). Throws to restart the consumer. */
        Duration readOnce(KafkaConsumer<K, V> consumer) throws Exception;
    }

    private final String name;
    private final Supplier<KafkaConsumer<K, V>> consumers;
    private final Reader<K, V> reader;
    private final Runnable restarted;
    private final Thread thread;
    private final CountDownLatch closing = new CountDownLatch(1);
    private volatile KafkaConsumer<K, V> consumer;

    /**
     * @param name the loop's name, in its thread's name and its log lines
     * @param restarted counts a failure (the restart that follows it)
     */
    ConsumerLoop(String name, Supplier<KafkaConsumer<K, V>> consumers, Reader<K, V> reader, Runnable restarted) {
        this.name = name;
        this.consumers = consumers;
        this.reader = reader;
        this.restarted = restarted;
        this.thread = Thread.ofPlatform().name("millrace-" + name).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    boolean closed() {
        return closing.getCount() == 0;
    }

    /** Waits {@code pause}, or less if the loop closes meanwhile; answers whether it closed. */
    boolean awaitClose(Duration pause) throws InterruptedException {
        return closing.await(pause.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void run() {
        var backoff = new Backoff();
        while (!closed()) {
            long since = System.nanoTime();
            try (var consuming = consumers.get()) {
                consumer = consuming;
                if (closed()) {
                    return;
                }
                reader.started(consuming);
                while (!closed()) {
                    Duration pause = reader.readOnce(consuming);
                    if (!pause.isZero() && awaitClose(pause)) {
                        return;
                    }
                }
            } catch (WakeupException e) {
                // closing (a wakeup is only sent by close)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (closed()) {
                    return;
                }
                if (System.nanoTime() - since >= STEADY.toNanos()) {
                    backoff.reset();
                }
                Duration pause = backoff.failed();
                LOG.warn("{} failed; it reads again from its last commit in {}: {}", name, pause, e.toString());
                restarted.run();
                try {
                    if (awaitClose(pause)) {
                        return;
                    }
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        closing.countDown();
        KafkaConsumer<K, V> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        if (thread.isAlive()) {
            try {
                thread.join(JOIN);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the loop's thread still runs. */
    boolean alive() {
        return thread.isAlive();
    }
}
