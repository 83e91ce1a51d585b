package io.millrace.topology;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record that does not decode is written, bytes as they were (unless the letter would be over
 * {@code max-record-bytes}), to the dead-letter topic in the same transaction as the rest of the task's output,
 * counted, and processing goes on. A flow record the global thread cannot decode is counted and logged only: that
 * thread cannot produce, and a dead letter it returned would kill it (and with it the executor).
 */
public final class DeadLetterDeserializationHandler implements DeserializationExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterDeserializationHandler.class);

    private DeadLetters.Settings settings;

    @Override
    public void configure(Map<String, ?> configs) {
        settings = DeadLetters.Settings.of(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
        LOG.warn("Dead-lettering an undecodable record from {}-{} at offset {}: {}", context.topic(), context.partition(),
                context.offset(), exception.getMessage());
        settings.meters().count(DeadLetterMeters.Reason.UNDECODABLE, context.topic());
        if (global(context)) {
            return Response.resume(); // the global thread (flows) has no producer: the record is logged and counted
        }
        var letter = DeadLetters.of(context.topic(), context.partition(), context.offset(), DeadLetters.keyText(record.key()),
                "Undecodable record: " + exception.getMessage(), record.value());
        return Response.resume(List.of(settings.letter(record.key(), letter)));
    }

    /** The global thread's records (the flows store's) come from no stream task, and it cannot send a dead letter. */
    private static boolean global(ErrorHandlerContext context) {
        return context.taskId() == null || context.taskId().subtopology() < 0;
    }
}
