package io.millrace.worker;

import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's dead letters: task records it can neither run nor report on (a value that is not a task record names no
 * execution to send a result to) go to the dead-letter topic with component {@code worker}, where they came from, why,
 * and their bytes; a letter too large for the topic goes again without them. Counted by reason. Thread-safe; never
 * throws. {@code settled} runs once the letter is written or given up: the record's offset is committed either way,
 * since holding it back would stop its partition's commits and make a restart run every later task again.
 */
final class TaskDeadLetters {
    /** The value is not a task record (not Avro, another schema, or null). */
    static final String UNREADABLE = "unreadable";
    private static final Logger LOG = LoggerFactory.getLogger(TaskDeadLetters.class);

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final WorkerMetrics metrics;

    TaskDeadLetters(Producer<String, byte[]> producer, String topic, WorkerMetrics metrics) {
        this.producer = producer;
        this.topic = topic;
        this.metrics = metrics;
    }

    /** Dead-letters {@code record} for {@code reason} (a metric tag), {@code detail} saying what was wrong. */
    void send(ConsumerRecord<String, byte[]> record, String reason, String detail, Runnable settled) {
        LOG.error("Dead-lettering the task record at {}-{}@{}: {}", record.topic(), record.partition(), record.offset(),
                detail);
        metrics.deadLettered(reason);
        produce(record, letter(record, detail, record.value()), e -> {
            if (e instanceof RecordTooLargeException && record.value() != null) {
                // not on the producer's I/O thread, where a send that blocks would stall every other send
                String without = detail + " (its " + record.value().length + " bytes left out: too large to keep)";
                Thread.startVirtualThread(() -> produce(record, letter(record, without, null), ignored -> settled.run()));
            } else {
                settled.run();
            }
        });
    }

    private static DeadLetterRecord letter(ConsumerRecord<String, byte[]> record, String reason, byte[] payload) {
        return DeadLetterRecord.newBuilder()
                .setComponent("worker")
                .setTopic(record.topic())
                .setPartition(record.partition())
                .setOffset(record.offset())
                .setKey(record.key())
                .setReason(reason)
                .setPayload(payload == null ? null : ByteBuffer.wrap(payload))
                .setAt(Instant.now())
                .build();
    }

    private void produce(ConsumerRecord<String, byte[]> record, DeadLetterRecord letter,
                         Consumer<Exception> then) {
        try {
            producer.send(new ProducerRecord<>(topic, record.key(), Topics.DEAD_LETTER_SERDE.encode(letter)),
                    (metadata, e) -> {
                        if (e != null) {
                            failed(record, e);
                        }
                        then.accept(e);
                    });
        } catch (RuntimeException e) {
            failed(record, e);
            then.accept(e);
        }
    }

    private static void failed(ConsumerRecord<String, byte[]> record, Exception e) {
        LOG.error("Dead-lettering the task record at {}-{}@{} failed; it is dropped", record.topic(), record.partition(),
                record.offset(), e);
    }
}
