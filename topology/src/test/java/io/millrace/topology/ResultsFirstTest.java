package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class ResultsFirstTest {
    private static final long PRODUCED = 1_767_225_600_000L;

    @Test
    void shouldPutAResultAheadOfCreatesProducedUpToThirtySecondsBeforeIt() {
        // when
        long extracted = new ResultsFirst().extract(record(PRODUCED), -1);

        // then: a create produced 29 s before the result comes after it, one produced 31 s before comes first
        assertThat(extracted).isLessThan(PRODUCED - 29_000).isGreaterThan(PRODUCED - 31_000);
        assertThat(ResultsFirst.produced(extracted)).isEqualTo(PRODUCED);
    }

    @Test
    void shouldNeverGiveANegativeTimestamp() {
        assertThat(new ResultsFirst().extract(record(1_000), -1)).isZero();
    }

    private static ConsumerRecord<Object, Object> record(long timestamp) {
        return new ConsumerRecord<>("millrace.results", 0, 0, timestamp, TimestampType.CREATE_TIME, 0, 0, "e1", null,
                new RecordHeaders(), java.util.Optional.empty());
    }
}
