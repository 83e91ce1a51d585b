package io.millrace.topology;

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

    /** A raw record for the dead-letter topic, as the Streams exception handlers return them. */
    static ProducerRecord<byte[], byte[]> producerRecord(String deadLetterTopic, byte[] key, DeadLetterRecord letter) {
        return new ProducerRecord<>(deadLetterTopic, key, Topics.DEAD_LETTER_SERDE.encode(letter));
    }

    static String keyText(byte[] key) {
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    static String topic(Map<String, ?> configs) {
        Object configured = configs.get(TOPIC_CONFIG);
        if (configured == null) {
            throw new IllegalArgumentException("Expected " + TOPIC_CONFIG + " among the Streams properties, but it is missing");
        }
        return configured.toString();
    }
}
