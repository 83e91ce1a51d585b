package io.millrace.topology;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record that does not decode is written, bytes as they were, to the dead-letter topic in the
 * same transaction as the rest of the task's output, and processing goes on.
 */
public final class DeadLetterDeserializationHandler implements DeserializationExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterDeserializationHandler.class);

    private String topic;

    @Override
    public void configure(Map<String, ?> configs) {
        topic = DeadLetters.topic(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
        LOG.warn("Dead-lettering an undecodable record from {}-{} at offset {}: {}", context.topic(), context.partition(),
                context.offset(), exception.getMessage());
        var letter = DeadLetters.of(context.topic(), context.partition(), context.offset(), DeadLetters.keyText(record.key()),
                "Undecodable record: " + exception.getMessage(), record.value());
        return Response.resume(List.of(DeadLetters.producerRecord(topic, record.key(), letter)));
    }
}
