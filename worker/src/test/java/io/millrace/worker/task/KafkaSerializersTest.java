package io.millrace.worker.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.millrace.core.flow.TaskTypes;
import io.millrace.worker.task.KafkaSerializers.KafkaSerializer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaSerializersTest {

    private static KafkaSerializer serializer(String type) throws TaskException {
        var props = new TaskProperties(Invocations.of("p", TaskTypes.KAFKA_PRODUCE, Map.of("valueSerializer", type), Map.of()));
        return KafkaSerializers.of(props, "valueSerializer");
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldWriteTextAndJsonAsKafkasStringAndJsonSerializersDo() throws Exception {
        // when / then
        assertThat(serializer("STRING").write("héllo")).isEqualTo(utf8("héllo"));
        assertThat(serializer("string").write(12)).isEqualTo(utf8("12"));
        assertThat(serializer("JSON").write(Map.of("a", List.of(1, true)))).isEqualTo(utf8("{\"a\":[1,true]}"));
        assertThat(serializer("JSON").write("text")).isEqualTo(utf8("\"text\""));
        assertThat(serializer("JSON").write(2.5)).isEqualTo(utf8("2.5"));
    }

    @Test
    void shouldWriteNumbersBigEndianFromNumbersOrTheirText() throws Exception {
        // when / then
        assertThat(serializer("INTEGER").write("-7")).isEqualTo(ByteBuffer.allocate(4).putInt(-7).array());
        assertThat(serializer("LONG").write(1L << 40)).isEqualTo(ByteBuffer.allocate(8).putLong(1L << 40).array());
        assertThat(serializer("SHORT").write(300)).isEqualTo(ByteBuffer.allocate(2).putShort((short) 300).array());
        assertThat(serializer("FLOAT").write("1.5")).isEqualTo(ByteBuffer.allocate(4).putFloat(1.5f).array());
        assertThat(serializer("DOUBLE").write(0.1)).isEqualTo(ByteBuffer.allocate(8).putDouble(0.1).array());
    }

    @Test
    void shouldWriteUuidsAsTextAndBytesFromBase64() throws Exception {
        // when / then
        assertThat(serializer("UUID").write("123E4567-E89B-12D3-A456-426614174000"))
                .isEqualTo(utf8("123e4567-e89b-12d3-a456-426614174000"));
        assertThat(serializer("BYTES").write("AAEC/w==")).isEqualTo(new byte[] {0, 1, 2, -1});
        assertThat(serializer("BYTE_ARRAY").write("AAEC\n/w==")).isEqualTo(new byte[] {0, 1, 2, -1});
        assertThat(serializer("BYTE_BUFFER").write("")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"STRING", "JSON", "INTEGER", "LONG", "SHORT", "FLOAT", "DOUBLE", "UUID", "BYTES", "VOID"})
    void shouldWriteNullAsNull(String type) throws Exception {
        // when / then
        assertThat(serializer(type).write(null)).isNull();
    }

    @Test
    void shouldSayWhyAValueDoesNotFitItsType() {
        // when / then
        assertThat(problem("INTEGER", "3.5")).isEqualTo("expected a whole number, got '3.5'");
        assertThat(problem("SHORT", 40_000)).isEqualTo("expected a whole number from -32768 to 32767, got '40000'");
        assertThat(problem("LONG", true)).isEqualTo("expected a number, got 'true'");
        assertThat(problem("UUID", "not-a-uuid")).isEqualTo("expected a UUID, got 'not-a-uuid'");
        assertThat(problem("BYTES", "%%%")).isEqualTo("expected base64 text, got '%%%'");
        assertThat(problem("VOID", "x")).isEqualTo("expected no value for VOID, got 'x'");
        assertThat(problem("STRING", Map.of("a", 1)))
                .isEqualTo("expected text for STRING, got an object; the JSON serde writes objects and lists");
    }

    private static String problem(String type, Object value) {
        Throwable thrown = catchThrowable(() -> serializer(type).write(value));
        assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
        return thrown.getMessage();
    }
}
