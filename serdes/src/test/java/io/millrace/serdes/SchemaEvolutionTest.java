package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.execution.State;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.TaskResultRecord;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest {

    @Test
    void shouldReadARecordWrittenWithThePreviousSchemaVersion() throws Exception {
        // given: a result encoded by a version-1 writer, which had no workerId
        Schema v1;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/TaskResultRecord-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        GenericRecord old = new GenericData.Record(v1);
        old.put("executionId", "e1");
        old.put("taskRunId", "r1");
        old.put("attempt", 2);
        old.put("state", new GenericData.EnumSymbol(v1.getField("state").schema(), "SUCCESS"));
        old.put("outputsJson", "{\"value\":\"x\"}");
        old.put("error", null);
        old.put("at", 1_700_000_000_000L);
        ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);

        // when
        TaskResultRecord current = Topics.RESULT_SERDE.deserializer().deserialize("t", toArray(bytes));

        // then
        assertThat(current.getExecutionId()).isEqualTo("e1");
        assertThat(current.getAttempt()).isEqualTo(2);
        assertThat(current.getState().name()).isEqualTo("SUCCESS");
        assertThat(current.getAt()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
        assertThat(current.getWorkerId()).isNull();
    }

    @Test
    void shouldReadAnEventWrittenBeforeExecutionPurgedExisted() throws Exception {
        // given: an event encoded by a version-1 writer, whose payload union had no ExecutionPurgedEvent
        Schema v1;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/EventRecord-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        Schema changed = v1.getField("payload").schema().getTypes().stream()
                .filter(t -> t.getName().equals("ExecutionStateChangedEvent")).findFirst().orElseThrow();
        GenericRecord payload = new GenericData.Record(changed);
        payload.put("state", new GenericData.EnumSymbol(changed.getField("state").schema(), "RUNNING"));
        GenericRecord old = new GenericData.Record(v1);
        old.put("executionId", "e1");
        old.put("at", 1_700_000_000_000L);
        old.put("payload", payload);
        ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);

        // when
        EventRecord current = Topics.EVENT_SERDE.deserializer().deserialize("t", toArray(bytes));

        // then
        assertThat(EventMapper.fromRecord(current)).isEqualTo(new ExecutionStateChanged(State.RUNNING,
                Instant.ofEpochMilli(1_700_000_000_000L)));
    }

    @Test
    void shouldRoundTripTheCurrentVersion() {
        // given
        var record = new TaskResultRecord("e1", "r1", 1, io.millrace.serdes.avro.StateValue.FAILED, "{}", "boom",
                Instant.ofEpochMilli(5), "worker-1");

        // when
        byte[] bytes = Topics.RESULT_SERDE.serializer().serialize("t", record);

        // then
        assertThat(bytes[0]).isEqualTo((byte) 0xC3); // single-object encoding marker
        assertThat(Topics.RESULT_SERDE.deserializer().deserialize("t", bytes)).isEqualTo(record);
    }

    @Test
    void shouldRejectBytesOfAnUnknownSchema() {
        assertThatThrownBy(() -> Topics.RESULT_SERDE.decode(new byte[] {(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9}))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("TaskResultRecord");
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
