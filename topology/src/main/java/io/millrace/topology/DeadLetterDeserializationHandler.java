package io.millrace.topology;

import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record that does not decode is written, bytes as they were, to the dead-letter topic in the
 * same transaction as the rest of the task's output, and processing goes on.
 */
public final class DeadLetterDeserializationHandler implements DeserializationExceptionHandler {
    /** The dead-letter topic's name, passed among the Streams properties. */
    public static final String TOPIC_CONFIG = "millrace.dead.letter.topic";
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterDeserializationHandler.class);

    private String topic;

    @Override
    public void configure(Map<String, ?> configs) {
        Object configured = configs.get(TOPIC_CONFIG);
        if (configured == null) {
            throw new IllegalArgumentException("Expected " + TOPIC_CONFIG + " among the Streams properties, but it is missing");
        }
        topic = configured.toString();
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
        LOG.warn("Dead-lettering an undecodable record from {}-{} at offset {}: {}", context.topic(), context.partition(),
                context.offset(), exception.getMessage());
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        var letter = DeadLetterRecord.newBuilder()
                .setComponent("executor")
                .setTopic(context.topic())
                .setPartition(context.partition())
                .setOffset(context.offset())
                .setKey(key)
                .setReason("Undecodable record: " + exception.getMessage())
                .setPayload(record.value() == null ? null : ByteBuffer.wrap(record.value()))
                .setAt(Instant.now())
                .build();
        return Response.resume(List.of(new ProducerRecord<>(topic, record.key(), Topics.DEAD_LETTER_SERDE.encode(letter))));
    }
}
