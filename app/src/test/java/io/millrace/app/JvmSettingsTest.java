package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JvmSettingsTest {
    @TempDir
    Path dir;

    @Test
    void shouldTurnKafkasConfigProvidersOffSoThatNoClientReadsAFileThroughOne() throws Exception {
        // given: a secret in a file, and client settings that would read it through Kafka's FileConfigProvider
        Path secret = Files.writeString(dir.resolve("secret.properties"), "password=hunter2\n");
        Map<String, Object> settings = Map.of("bootstrap.servers", "localhost:9092",
                "key.serializer", StringSerializer.class.getName(),
                "value.serializer", StringSerializer.class.getName(),
                "config.providers", "file", "config.providers.file.class", FileConfigProvider.class.getName(),
                "client.id", "${file:" + secret + ":password}");
        String before = System.getProperty(JvmSettings.KAFKA_CONFIG_PROVIDERS);
        System.clearProperty(JvmSettings.KAFKA_CONFIG_PROVIDERS);
        try {
            // when
            JvmSettings.apply();

            // then: a client that names a provider is not made, so nothing reads the file
            assertThat(System.getProperty(JvmSettings.KAFKA_CONFIG_PROVIDERS)).isEqualTo("none");
            assertThatThrownBy(() -> new ProducerConfig(settings)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining(FileConfigProvider.class.getName() + " is not allowed")
                    .hasMessageNotContaining("hunter2");
        } finally {
            if (before == null) {
                System.clearProperty(JvmSettings.KAFKA_CONFIG_PROVIDERS);
            } else {
                System.setProperty(JvmSettings.KAFKA_CONFIG_PROVIDERS, before);
            }
        }
    }

    @Test
    void shouldLetJavasHttpClientSetTheHostHeaderKeepingWhatTheJvmWasGiven() {
        // given: the build's own value (surefire sets it), put back afterwards
        String before = System.getProperty(JvmSettings.HTTP_RESTRICTED_HEADERS);
        try {
            // when: none given, another header given, host already given
            System.clearProperty(JvmSettings.HTTP_RESTRICTED_HEADERS);
            JvmSettings.apply();
            String none = System.getProperty(JvmSettings.HTTP_RESTRICTED_HEADERS);
            System.setProperty(JvmSettings.HTTP_RESTRICTED_HEADERS, "content-length");
            JvmSettings.apply();
            String other = System.getProperty(JvmSettings.HTTP_RESTRICTED_HEADERS);
            System.setProperty(JvmSettings.HTTP_RESTRICTED_HEADERS, "Host, connection");
            JvmSettings.apply();
            String given = System.getProperty(JvmSettings.HTTP_RESTRICTED_HEADERS);

            // then
            assertThat(none).isEqualTo("host");
            assertThat(other).isEqualTo("content-length,host");
            assertThat(given).isEqualTo("Host, connection");
        } finally {
            if (before == null) {
                System.clearProperty(JvmSettings.HTTP_RESTRICTED_HEADERS);
            } else {
                System.setProperty(JvmSettings.HTTP_RESTRICTED_HEADERS, before);
            }
        }
    }
}
