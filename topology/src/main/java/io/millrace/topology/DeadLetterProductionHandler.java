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
 * An output record that can never be written (too large, or not serializable) is dead-lettered without its payload,
 * counted, and processing goes on: retrying it would stop the partition for good. The executor checks every record
 * against {@code max-record-bytes} before it sends it ({@link Effects}), so this happens only when that limit is set
 * above what the topic or the producer accepts. Every other error fails as by default, so the transaction is retried.
 */
public final class DeadLetterProductionHandler implements ProductionExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterProductionHandler.class);

    private DeadLetters.Settings settings;

    @Override
    public void configure(Map<String, ?> configs) {
        settings = DeadLetters.Settings.of(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        if (!(exception instanceof RecordTooLargeException)) {
            return Response.fail();
        }
        return deadLetter(record.topic(), record.key(), "Unwritable record for " + record.topic() + ": "
                + exception.getMessage() + " (is max-record-bytes above the topic's max.message.bytes?)");
    }

    @Override
    public Response handleSerializationError(ErrorHandlerContext context, ProducerRecord record, Exception exception,
            SerializationExceptionOrigin origin) {
        return deadLetter(record.topic(), null, "Unserializable " + origin.name().toLowerCase() + " for " + record.topic()
                + ": " + exception.getMessage());
    }

    private Response deadLetter(String topic, byte[] key, String reason) {
        LOG.error("Dead-lettering an output record: {}", reason);
        settings.meters().count(DeadLetterMeters.Reason.UNWRITABLE, topic);
        var letter = DeadLetters.of(topic, -1, -1, DeadLetters.keyText(key), reason, null);
        return Response.resume(List.of(settings.letter(key, letter)));
    }
}
