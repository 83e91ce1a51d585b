package io.millrace.topology;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Dead letters of the executor: what failed, where it came from, and the record's bytes when they can be kept. */
final class DeadLetters {
    /** The dead-letter topic's name, passed among the Streams properties to the exception handlers. */
    static final String TOPIC_CONFIG = "millrace.dead.letter.topic";
    /** The executor's {@code max-record-bytes}, passed among the Streams properties to the exception handlers. */
    static final String MAX_RECORD_BYTES_CONFIG = "millrace.max.record.bytes";
    /** The topics' prefix, passed among the Streams properties to the exception handlers. */
    static final String TOPIC_PREFIX_CONFIG = "millrace.topic.prefix";
    /** The registry the exception handlers count their dead letters in, passed among the Streams properties. */
    static final String METRICS_CONFIG = "millrace.metrics.registry";
    /** The longest reason a letter keeps. */
    static final int MAX_REASON_CHARS = 10_000;

    private DeadLetters() {
    }

    static DeadLetterRecord of(String topic, int partition, long offset, String key, String reason, byte[] payload) {
        return DeadLetterRecord.newBuilder()
                .setComponent("executor")
                .setTopic(topic)
                .setPartition(partition)
                .setOffset(offset)
                .setKey(key)
                .setReason(reason)
                .setPayload(payload == null ? null : ByteBuffer.wrap(payload))
                .setAt(Instant.now())
                .build();
    }

    /**
     * The letter encoded; without its payload when it would be over {@code maxRecordBytes} (a record that was itself
     * near the limit), the reason saying so: a dead letter Kafka refuses would stop the executor like any record.
     */
    static byte[] encode(DeadLetterRecord letter, int maxRecordBytes) {
        if (letter.getReason().length() > MAX_REASON_CHARS) {
            letter.setReason(letter.getReason().substring(0, MAX_REASON_CHARS) + "… [truncated]");
        }
        byte[] encoded = Topics.DEAD_LETTER_SERDE.encode(letter);
        if (encoded.length <= maxRecordBytes || letter.getPayload() == null) {
            return encoded;
        }
        letter.setReason(letter.getReason() + " (its payload of " + letter.getPayload().remaining()
                + " bytes is left out: over max-record-bytes, " + maxRecordBytes + ")");
        letter.setPayload(null);
        return Topics.DEAD_LETTER_SERDE.encode(letter);
    }

    /**
     * What the Kafka Streams exception handlers need, from the Streams properties: where letters go, how large they may
     * be, and where they are counted (nowhere when no registry was passed, as in a topology test).
     */
    record Settings(String topic, int maxRecordBytes, DeadLetterMeters meters) {

        static Settings of(Map<String, ?> configs) {
            Object registry = configs.get(METRICS_CONFIG);
            return new Settings(required(configs, TOPIC_CONFIG),
                    Integer.parseInt(required(configs, MAX_RECORD_BYTES_CONFIG)),
                    new DeadLetterMeters(registry instanceof MeterRegistry r ? r : new SimpleMeterRegistry(),
                            required(configs, TOPIC_PREFIX_CONFIG)));
        }

        ProducerRecord<byte[], byte[]> letter(byte[] key, DeadLetterRecord letter) {
            return new ProducerRecord<>(topic, key, encode(letter, maxRecordBytes));
        }
    }

    static String keyText(byte[] key) {
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    private static String required(Map<String, ?> configs, String key) {
        Object configured = configs.get(key);
        if (configured == null) {
            throw new IllegalArgumentException("Expected " + key + " among the Streams properties, but it is missing");
        }
        return configured.toString();
    }
}
