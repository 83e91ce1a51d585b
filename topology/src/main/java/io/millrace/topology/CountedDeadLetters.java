package io.millrace.topology;

import io.millrace.config.ExecutorLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The executor processor's dead letters: sent at once (not through a decision's outbox), naming the record being
 * handled as their source, and counted by why and by the topic that record came from.
 */
final class CountedDeadLetters {
    private final ProcessorContext<String, Object> context;
    private final int maxRecordBytes;
    private final ExecutorMetrics metrics;
    /** Where the record being handled was read, when not the record Kafka Streams is processing; null otherwise. */
    private Origin readFrom;

    CountedDeadLetters(ProcessorContext<String, Object> context, ExecutorLimits limits, ExecutorMetrics metrics) {
        this.context = context;
        this.maxRecordBytes = limits.maxRecordBytes();
        this.metrics = metrics;
    }

    /** Sends a letter for {@code original}; its payload is left out when the letter would not fit. */
    void send(String key, String reason, SpecificRecord original, DeadLetterMeters.Reason why) {
        Origin source = readFrom != null ? readFrom : context.recordMetadata().map(Origin::of).orElse(Origin.NONE);
        var letter = DeadLetters.of(source.topic(), source.partition(), source.offset(), key, reason,
                original == null ? null : encode(original));
        byte[] encoded = DeadLetters.encode(letter, maxRecordBytes);
        context.forward(new Record<>(key, new Encoded(letter, encoded), context.currentSystemTimeMs()),
                Names.DEAD_LETTERS_SINK);
        metrics.deadLettered(why, source.topic());
    }

    /** Runs {@code handling} with its letters naming {@code origin}: a record read before, handled now. */
    void readFrom(Origin origin, Runnable handling) {
        readFrom = origin;
        try {
            handling.run();
        } finally {
            readFrom = null;
        }
    }

    /** The original command in its own single-object encoding, so an operator can replay it as it was. */
    private static byte[] encode(SpecificRecord original) {
        try {
            ByteBuffer buffer = new BinaryMessageEncoder<SpecificRecord>(SpecificData.get(), original.getSchema()).encode(original);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (IOException | RuntimeException e) {
            return original.toString().getBytes(StandardCharsets.UTF_8);
        }
    }
}
