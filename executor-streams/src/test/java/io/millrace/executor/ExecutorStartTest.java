package io.millrace.executor;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecutorStartTest {
    @TempDir
    Path stateDir;

    @Test
    void shouldRefuseToStartWhenCommandsAndResultsAreNotCoPartitioned() {
        // given: results created by a worker with another partition count
        String prefix = "start" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = config(prefix, "4");
        TopicAdmin.ensure(config(prefix, "2"), List.of(Topics.of(config).results()));

        // when / then
        assertThatThrownBy(() -> Executor.start(config, new SimpleMeterRegistry()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(prefix + "commands and " + prefix + "results to have the same number of partitions")
                .hasMessageContaining("4 and 2");
    }

    private MillraceConfig config(String prefix, String partitions) {
        return ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(),
                "topic-prefix", prefix, "partitions", partitions, "state-dir", stateDir.toString()), null);
    }
}
