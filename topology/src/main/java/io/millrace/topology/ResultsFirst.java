package io.millrace.topology;

import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * The timestamps of {@code results} as Kafka Streams sees them: {@link #AHEAD} earlier than they were produced. A stream
 * task takes its next record from the partition whose next record is the oldest, so a backlog of creates (produced
 * before the results of the executions they start) was read, and each started one more execution, while the results
 * that would have ended the running ones waited behind it: an executor offered more than it could run ended almost
 * nothing. Results now go first unless a create has waited {@link #AHEAD} longer than them: finishing what was
 * started comes before starting more, and no create waits behind results for longer than that.
 *
 * <p>Only the choice of the next record sees the shift: the processor reads a result's own time back with
 * {@link #produced}, and the records it sends carry the wall-clock time.
 */
final class ResultsFirst implements TimestampExtractor {
    /** How much sooner a result is taken than a create produced at the same time. */
    static final Duration AHEAD = Duration.ofSeconds(30);
    private static final long AHEAD_MILLIS = AHEAD.toMillis();

    @Override
    public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
        return Math.max(0, record.timestamp() - AHEAD_MILLIS);
    }

    /** When a result was produced, from the timestamp this extractor gave it (within {@link #AHEAD} of epoch: 0). */
    static long produced(long extracted) {
        return extracted == 0 ? 0 : extracted + AHEAD_MILLIS;
    }
}
