package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
        var registry = new SimpleMeterRegistry();
        handler.configure(Map.of(DeadLetters.TOPIC_CONFIG, "p.dlq", DeadLetters.MAX_RECORD_BYTES_CONFIG, 1_000_000,
                DeadLetters.TOPIC_PREFIX_CONFIG, "p.", DeadLetters.METRICS_CONFIG, registry));
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
        assertThat(registry.get(DeadLetterMeters.NAME).tags("reason", "undecodable", "topic", "commands").counter().count())
                .isEqualTo(1.0);
    }

    @Test
    void shouldCountAndSkipAFlowRecordOfTheGlobalThreadWithoutALetterItCouldNotSend() {
        // given
        var handler = new DeadLetterDeserializationHandler();
        var registry = new SimpleMeterRegistry();
        handler.configure(Map.of(DeadLetters.TOPIC_CONFIG, "p.dlq", DeadLetters.MAX_RECORD_BYTES_CONFIG, 1_000_000,
                DeadLetters.TOPIC_PREFIX_CONFIG, "p.", DeadLetters.METRICS_CONFIG, registry));
        var record = new ConsumerRecord<>("p.flows", 0, 3L, "k1".getBytes(StandardCharsets.UTF_8), new byte[] {1});

        // when
        DeserializationExceptionHandler.Response response = handler.handleError(new Context(new TaskId(-1, -1), "p.flows"),
                record, new IllegalStateException("bad marker"));

        // then
        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
        assertThat(registry.get(DeadLetterMeters.NAME).tags("reason", "undecodable", "topic", "flows").counter().count())
                .isEqualTo(1.0);
    }

    @Test
    void shouldRefuseToStartWithoutATopic() {
        assertThatThrownBy(() -> new DeadLetterDeserializationHandler().configure(Map.of()))
                .hasMessageContaining(DeadLetters.TOPIC_CONFIG);
    }

    private record Context(TaskId taskId, String topic) implements ErrorHandlerContext {
        Context() {
            this(new TaskId(0, 2), "p.commands");
        }

        public int partition() { return 2; }
        public long offset() { return 41L; }
        public Headers headers() { return new RecordHeaders(); }
        public String processorNodeId() { return Names.COMMANDS_SOURCE; }
        public long timestamp() { return 0L; }
        public byte[] sourceRawKey() { return null; }
        public byte[] sourceRawValue() { return null; }
    }
}
