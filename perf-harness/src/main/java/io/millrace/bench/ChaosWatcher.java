package io.millrace.bench;

import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.ExecutionCompletedEvent;
import io.millrace.serdes.avro.LaterEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the events topic (committed records only) from its end and tells the ledger of every ExecutionCompleted
 * event. Its consumer rides out a broker restart by reconnecting, as any client does.
 */
final class ChaosWatcher implements AutoCloseable {
    private final KafkaConsumer<String, byte[]> consumer;
    private final Topics.Topic<EventRecord> events;
    private final ChaosLedger ledger;
    private final Thread thread;
    private volatile boolean running = true;

    ChaosWatcher(String bootstrapServers, Topics topics, ChaosLedger ledger) {
        this.events = topics.events();
        this.ledger = ledger;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(events.name(), Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(events.name(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        this.thread = Thread.ofPlatform().name("chaos-watcher").daemon().start(this::loop);
    }

    private void loop() {
        var deserializer = events.valueSerde().deserializer();
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        completed(r.key(), deserializer.deserialize(r.topic(), r.value()));
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** Tells the ledger of an ExecutionCompleted among the record's events (a step's, in order). */
    private void completed(String executionId, EventRecord record) {
        Stream.concat(Stream.of(record.getPayload()), record.getThen().stream().map(LaterEvent::getPayload))
                .filter(ExecutionCompletedEvent.class::isInstance).map(ExecutionCompletedEvent.class::cast)
                .forEach(completed -> ledger.completed(executionId, completed.getState().name(), System.nanoTime()));
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(10_000);
    }
}
