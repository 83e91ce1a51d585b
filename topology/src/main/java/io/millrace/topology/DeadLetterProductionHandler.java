package io.millrace.topology;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An output record that can never be written (too large, or not serializable) is dead-lettered
 * without its payload and processing goes on: retrying it would stop the partition for good. A task
 * that was not dispatched this way is re-dispatched when its lease expires and fails after the last
 * lost attempt. Every other error fails as by default, so the transaction is retried.
 */
public final class DeadLetterProductionHandler implements ProductionExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterProductionHandler.class);

    private String topic;

    @Override
    public void configure(Map<String, ?> configs) {
        topic = DeadLetters.topic(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        if (!(exception instanceof RecordTooLargeException)) {
            return Response.fail();
        }
        return deadLetter(record, "Unwritable record for " + record.topic() + ": " + exception.getMessage());
    }

    @Override
    public Response handleSerializationError(ErrorHandlerContext context, ProducerRecord record, Exception exception,
            SerializationExceptionOrigin origin) {
        return deadLetter(null, "Unserializable " + origin.name().toLowerCase() + " for " + record.topic() + ": "
                + exception.getMessage());
    }

    private Response deadLetter(ProducerRecord<byte[], byte[]> record, String reason) {
        LOG.error("Dead-lettering an output record: {}", reason);
        byte[] key = record == null ? null : record.key();
        var letter = DeadLetters.of(record == null ? null : record.topic(), -1, -1, DeadLetters.keyText(key), reason, null);
        return Response.resume(List.of(DeadLetters.producerRecord(topic, key, letter)));
    }
}
