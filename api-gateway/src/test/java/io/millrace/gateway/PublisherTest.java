package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.serdes.Topics;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class PublisherTest {

    @Test
    void shouldPassProducerSettingsThroughButKeepCommandsDurable() {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of(
                "kafka.producer.linger.ms", "0",
                "kafka.security.protocol", "PLAINTEXT",
                "kafka.consumer.fetch.max.wait.ms", "20",
                "kafka.producer.acks", "1",
                "kafka.producer.enable.idempotence", "false"), null);

        // when
        Map<String, Object> props = Publisher.properties(config);

        // then
        assertThat(props).containsEntry("linger.ms", "0").containsEntry("security.protocol", "PLAINTEXT")
                .containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                .containsEntry("bootstrap.servers", config.bootstrapServers())
                .doesNotContainKeys("fetch.max.wait.ms", "producer.linger.ms");
    }

    @Test
    void shouldSendAsTheEngineProducersOfItsGuaranteeDo() {
        // given
        MillraceConfig atLeastOnce = ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "at_least_once"), null);

        // when
        Map<String, Object> exactlyOnce = Publisher.properties(ConfigLoader.load(Map.of(), Map.of(), null));
        Map<String, Object> atLeastOnceDefault = Publisher.properties(atLeastOnce);

        // then
        assertThat(exactlyOnce).containsEntry("linger.ms", 0).containsEntry("max.in.flight.requests.per.connection", 1);
        assertThat(atLeastOnceDefault).containsEntry("linger.ms", 0).doesNotContainKey("max.in.flight.requests.per.connection");
    }

    @Test
    void shouldRefuseACommandOverMaxRecordBytesBeforeSendingIt() {
        // given: a publisher whose records may take 300 bytes, and a start that carries more
        var producer = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        var publisher = new Publisher(producer, new Topics("t."), 300);
        var small = new CreateExecution("e1", "ns", "f", null, Map.of(), Map.of(), Instant.EPOCH);
        var big = new CreateExecution("e2", "ns", "f", null, Map.of("text", "x".repeat(400)), Map.of(), Instant.EPOCH);

        // when
        publisher.checkSize(small, "The small start");

        // then
        assertThatThrownBy(() -> publisher.checkSize(big, "The big start"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(413))
                .hasMessageContaining("The big start would take").hasMessageContaining("(max-record-bytes)");
        assertThat(producer.history()).isEmpty();
    }
}
