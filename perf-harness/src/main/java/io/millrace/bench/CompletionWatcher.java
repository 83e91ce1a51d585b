package io.millrace.bench;

import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.StateValue;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the executions topic (committed records only, as any client would) from its end and reports each
 * terminal snapshot to the tracker with the time it was observed.
 */
final class CompletionWatcher implements AutoCloseable {
    private static final Set<StateValue> TERMINAL = EnumSet.of(StateValue.SUCCESS, StateValue.WARNING, StateValue.FAILED,
            StateValue.KILLED, StateValue.SKIPPED);

    private final KafkaConsumer<String, byte[]> consumer;
    private final Tracker tracker;
    private final Thread thread;
    private volatile boolean running = true;

    CompletionWatcher(String bootstrapServers, Topics topics, Tracker tracker) {
        this.tracker = tracker;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new ByteArrayDeserializer());
        String topic = topics.executions().name();
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        if (partitions.isEmpty()) {
            consumer.close();
            throw new IllegalStateException("Topic " + topic + " does not exist: is the engine running with this topic prefix?");
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        this.thread = Thread.ofPlatform().name("bench-watcher").daemon().start(this::loop);
    }

    private void loop() {
        long lastForget = System.nanoTime();
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null || SnapshotKeys.isRun(r.key())) {
                        continue; // a task run's snapshot, or a tombstone
                    }
                    long now = System.nanoTime();
                    ExecutionRecord execution = Topics.SNAPSHOT_SERDE.decode(r.value()).getExecution();
                    StateValue state = execution.getState();
                    if (TERMINAL.contains(state)) {
                        tracker.ended(r.key(), now, startedNanos(execution, now), endedNanos(execution, now),
                                state == StateValue.SUCCESS);
                    }
                }
                long now = System.nanoTime();
                if (now - lastForget > 10_000_000_000L) {
                    tracker.forgetUnknown(now);
                    lastForget = now;
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /**
     * When the executor started {@code execution} (its first state, CREATED), on this JVM's {@code nanoTime} scale: the
     * executor's wall clock is this machine's, or one kept in step with it.
     */
    static long startedNanos(ExecutionRecord execution, long nowNanos) {
        return execution.getHistories().isEmpty() ? Tracker.UNKNOWN
                : onNanoScale(execution.getHistories().getFirst().getDate(), nowNanos);
    }

    /** When the executor decided {@code execution}'s end (its last state), on this JVM's {@code nanoTime} scale. */
    static long endedNanos(ExecutionRecord execution, long nowNanos) {
        return execution.getHistories().isEmpty() ? Tracker.UNKNOWN
                : onNanoScale(execution.getHistories().getLast().getDate(), nowNanos);
    }

    private static long onNanoScale(Instant at, long nowNanos) {
        long agoMillis = System.currentTimeMillis() - at.toEpochMilli();
        return nowNanos - agoMillis * 1_000_000L;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(10_000);
    }
}
