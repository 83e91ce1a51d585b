package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.util.Map;
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
    void shouldLingerAsTheEngineProducersOfItsGuaranteeDo() {
        // given
        MillraceConfig atLeastOnce = ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "at_least_once"), null);

        // when
        Map<String, Object> exactlyOnce = Publisher.properties(ConfigLoader.load(Map.of(), Map.of(), null));
        Map<String, Object> atLeastOnceDefault = Publisher.properties(atLeastOnce);

        // then
        assertThat(exactlyOnce).containsEntry("linger.ms", 1);
        assertThat(atLeastOnceDefault).containsEntry("linger.ms", 0);
    }
}
