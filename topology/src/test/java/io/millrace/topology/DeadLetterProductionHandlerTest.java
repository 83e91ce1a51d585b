package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.SerializationExceptionOrigin;
import org.junit.jupiter.api.Test;

/** The handler reads neither the record's context nor its value: neither is kept in a letter. */
class DeadLetterProductionHandlerTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DeadLetterProductionHandler handler = new DeadLetterProductionHandler();

    DeadLetterProductionHandlerTest() {
        handler.configure(Map.of(DeadLetters.TOPIC_CONFIG, "p.dlq", DeadLetters.MAX_RECORD_BYTES_CONFIG, 1_000_000,
                DeadLetters.TOPIC_PREFIX_CONFIG, "p.", DeadLetters.METRICS_CONFIG, registry));
    }

    @Test
    void shouldDeadLetterARecordTooLargeForTheTopicWithoutItsPayloadAndGoOn() {
        // given: a snapshot under max-record-bytes that the topic refuses
        var record = new ProducerRecord<>("p.executions", "e1".getBytes(StandardCharsets.UTF_8), new byte[2_000_000]);

        // when
        ProductionExceptionHandler.Response response = handler.handleError(null, record,
                new RecordTooLargeException("The message is 2000088 bytes when serialized"));

        // then
        assertThat(response.result()).isEqualTo(ProductionExceptionHandler.Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).hasSize(1);
        var letter = response.deadLetterQueueRecords().getFirst();
        assertThat(letter.topic()).isEqualTo("p.dlq");
        assertThat(letter.key()).isEqualTo("e1".getBytes(StandardCharsets.UTF_8));
        DeadLetterRecord decoded = Topics.DEAD_LETTER_SERDE.decode(letter.value());
        assertThat(decoded.getTopic()).isEqualTo("p.executions");
        assertThat(decoded.getKey()).isEqualTo("e1");
        assertThat(decoded.getReason()).contains("Unwritable record for p.executions", "2000088 bytes",
                "max-record-bytes");
        assertThat(decoded.getPayload()).isNull();
        assertThat(unwritable("executions")).isEqualTo(1.0);
    }

    @Test
    void shouldFailOnAnyOtherErrorSoThatTheTransactionIsRetried() {
        // given
        var record = new ProducerRecord<>("p.tasks.default", "e1".getBytes(StandardCharsets.UTF_8), new byte[] {1});

        // when
        ProductionExceptionHandler.Response response = handler.handleError(null, record,
                new TimeoutException("Expiring 1 record(s)"));

        // then: nothing lost, nothing counted
        assertThat(response.result()).isEqualTo(ProductionExceptionHandler.Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
        assertThat(registry.find(DeadLetterMeters.NAME).counters()).allMatch(counter -> counter.count() == 0);
    }

    @Test
    void shouldDeadLetterARecordThatCannotBeSerialized() {
        // given
        var record = new ProducerRecord<Object, Object>("p.executions", "e1", new Object());

        // when
        ProductionExceptionHandler.Response response = handler.handleSerializationError(null, record,
                new SerializationException("not an execution"), SerializationExceptionOrigin.VALUE);

        // then
        assertThat(response.result()).isEqualTo(ProductionExceptionHandler.Result.RESUME);
        DeadLetterRecord decoded = Topics.DEAD_LETTER_SERDE.decode(response.deadLetterQueueRecords().getFirst().value());
        assertThat(decoded.getReason()).isEqualTo("Unserializable value for p.executions: not an execution");
        assertThat(decoded.getPayload()).isNull();
        assertThat(unwritable("executions")).isEqualTo(1.0);
    }

    private double unwritable(String topic) {
        return registry.get(DeadLetterMeters.NAME).tags("reason", "unwritable", "topic", topic).counter().count();
    }
}
