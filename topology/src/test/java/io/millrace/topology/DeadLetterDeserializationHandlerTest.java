package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

class DeadLetterDeserializationHandlerTest {

    @Test
    void shouldResumeAndDeadLetterTheRawRecord() {
        // given
        var handler = new DeadLetterDeserializationHandler();
        handler.configure(Map.of(DeadLetters.TOPIC_CONFIG, "p.dlq"));
        byte[] value = {1, 2, 3};
        var record = new ConsumerRecord<>("p.commands", 2, 41L, "k1".getBytes(StandardCharsets.UTF_8), value);

        // when
        DeserializationExceptionHandler.Response response =
                handler.handleError(new Context(), record, new IllegalStateException("bad marker"));

        // then
        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).hasSize(1);
        var letter = response.deadLetterQueueRecords().getFirst();
        assertThat(letter.topic()).isEqualTo("p.dlq");
        DeadLetterRecord decoded = Topics.DEAD_LETTER_SERDE.decode(letter.value());
        assertThat(decoded.getTopic()).isEqualTo("p.commands");
        assertThat(decoded.getPartition()).isEqualTo(2);
        assertThat(decoded.getOffset()).isEqualTo(41L);
        assertThat(decoded.getKey()).isEqualTo("k1");
        assertThat(decoded.getReason()).contains("bad marker");
        assertThat(decoded.getPayload().array()).isEqualTo(value);
    }

    @Test
    void shouldRefuseToStartWithoutATopic() {
        assertThatThrownBy(() -> new DeadLetterDeserializationHandler().configure(Map.of()))
                .hasMessageContaining(DeadLetters.TOPIC_CONFIG);
    }

    private static final class Context implements ErrorHandlerContext {
        public String topic() { return "p.commands"; }
        public int partition() { return 2; }
        public long offset() { return 41L; }
        public Headers headers() { return new RecordHeaders(); }
        public String processorNodeId() { return Names.COMMANDS_SOURCE; }
        public TaskId taskId() { return new TaskId(0, 2); }
        public long timestamp() { return 0L; }
        public byte[] sourceRawKey() { return null; }
        public byte[] sourceRawValue() { return null; }
    }
}
