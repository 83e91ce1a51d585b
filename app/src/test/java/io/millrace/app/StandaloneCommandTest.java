package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StandaloneCommandTest {
    @Test
    void shouldLetFlowsReachTheEmbeddedBrokerUnlessTheOperatorSaidNo() {
        // when
        MillraceConfig byDefault = StandaloneCommand.engineConfig(MillraceConfig.defaults(), "localhost:9092",
                Path.of("data"));
        MillraceConfig refused = StandaloneCommand.engineConfig(ConfigLoader.load(Map.of(),
                Map.of("task-kafka-allow-engine-cluster", "false"), null), "localhost:9092", Path.of("data"));

        // then
        assertThat(byDefault.taskReach().kafkaAllowEngineCluster()).isTrue();
        assertThat(byDefault.stateDir()).isEqualTo(Path.of("data", "state"));
        assertThat(byDefault.bootstrapServers()).isEqualTo("localhost:9092");
        assertThat(refused.taskReach().kafkaAllowEngineCluster()).isFalse();
    }
}
