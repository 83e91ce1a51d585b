package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.serdes.avro.LogRecord;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

class AvroSerdeHeaderTest {
    private static final byte[] LOG_LINE = Topics.LOG_SERDE.encode(new LogRecord("ex1", "ns", "f", "t", "ex1-t", 1,
            Instant.EPOCH, "INFO", null, "hello"));

    @Test
    void shouldKnowItsOwnRecordsByTheirHeader() {
        assertThat(Topics.LOG_SERDE.hasHeader(LOG_LINE)).isTrue();
    }

    @Test
    void shouldKnowARecordWrittenWithAnEarlierVersionOfItsSchema() throws Exception {
        // given: a result as a version-1 writer encoded it
        Schema v1;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/TaskResultRecord-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        GenericRecord old = new GenericData.Record(v1);
        old.put("executionId", "e1");
        old.put("taskRunId", "r1");
        old.put("attempt", 2);
        old.put("state", new GenericData.EnumSymbol(v1.getField("state").schema(), "SUCCESS"));
        old.put("outputsJson", "{}");
        old.put("error", null);
        old.put("at", 1L);
        ByteBuffer encoded = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);

        // then
        assertThat(Topics.RESULT_SERDE.hasHeader(bytes)).isTrue();
    }

    @Test
    void shouldRefuseBytesThatAreNotARecordOfItsType() {
        assertThat(Topics.LOG_SERDE.hasHeader("not avro at all".getBytes())).isFalse();
        assertThat(Topics.LOG_SERDE.hasHeader(new byte[] {(byte) 0xC3, 0x01, 1, 2})).isFalse();
        assertThat(Topics.LOG_SERDE.hasHeader(new byte[0])).isFalse();
        assertThat(Topics.SNAPSHOT_SERDE.hasHeader(LOG_LINE)).isFalse();
    }
}
