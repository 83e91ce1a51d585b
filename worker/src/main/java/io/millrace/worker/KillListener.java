package io.millrace.worker;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the kills topic whole, apart from the tasks (every partition, from its end when the worker starts, in no
 * consumer group), and hands each killed execution's id to {@code kill}: the attempts of it that run here are
 * interrupted at once, however busy the worker's slots are. Every worker reads every kill; those that run nothing of
 * that execution do nothing. A kill sent while no worker ran is no matter: the executor ignores the results of a
 * killed execution.
 */
final class KillListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KillListener.class);
    private static final Duration POLL = Duration.ofMillis(200);

    private final KafkaConsumer<String, byte[]> consumer;
    private final Consumer<String> kill;
    private final Thread thread;
    private volatile boolean running = true;

    KillListener(KafkaConsumer<String, byte[]> consumer, String topic, Consumer<String> kill, String name) {
        this.consumer = consumer;
        this.kill = kill;
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // from now: a kill sent before this worker started is not its own
        this.thread = Thread.ofPlatform().daemon().name(name).start(this::loop);
    }

    private void loop() {
        while (running) {
            try {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    if (record.key() != null) {
                        kill.accept(record.key());
                    }
                }
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                LOG.warn("Reading the kills topic failed; trying again", e);
                sleep();
            }
        }
        consumer.close(Duration.ofSeconds(5));
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
