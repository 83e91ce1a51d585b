package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicAdminTest {

    @Test
    void shouldPassSecurityAndAdminPropertiesToTheAdminClient() {
        // given
        var config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", "k:9093",
                "kafka.security.protocol", "SSL", "kafka.admin.request.timeout.ms", "5000",
                "kafka.producer.linger.ms", "5"), null);

        // when
        Map<String, Object> props = TopicAdmin.adminProperties(config);

        // then
        assertThat(props).containsEntry("bootstrap.servers", "k:9093")
                .containsEntry("security.protocol", "SSL")
                .containsEntry("request.timeout.ms", "5000")
                .doesNotContainKey("producer.linger.ms")
                .doesNotContainKey("linger.ms");
    }
}
