package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StandaloneCommandTest {
    @TempDir
    Path data;

    @Test
    void shouldLetFlowsReachTheEmbeddedBrokerUnlessTheOperatorSaidNo() throws Exception {
        // when
        MillraceConfig byDefault = StandaloneCommand.engineConfig(MillraceConfig.defaults(), "localhost:9092", data);
        MillraceConfig refused = StandaloneCommand.engineConfig(ConfigLoader.load(Map.of(),
                Map.of("task-kafka-allow-engine-cluster", "false"), null), "localhost:9092", data);

        // then
        assertThat(byDefault.taskReach().kafkaAllowEngineCluster()).isTrue();
        assertThat(byDefault.stateDir()).isEqualTo(data.resolve("state"));
        assertThat(byDefault.bootstrapServers()).isEqualTo("localhost:9092");
        assertThat(refused.taskReach().kafkaAllowEngineCluster()).isFalse();
    }

    @Test
    void shouldKeepTheKeyOfSecretInputsInTheDataFolderUnlessOneIsSet() throws Exception {
        // when
        MillraceConfig first = StandaloneCommand.engineConfig(MillraceConfig.defaults(), "localhost:9092", data);
        MillraceConfig again = StandaloneCommand.engineConfig(MillraceConfig.defaults(), "localhost:9092", data);
        MillraceConfig set = StandaloneCommand.engineConfig(ConfigLoader.load(Map.of(), Map.of("encryption-key",
                "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="), null), "localhost:9092", data);

        // then: the same key across starts, readable by its owner only; a set key wins
        String ciphertext = first.secrets().inputCipher().orElseThrow().encrypt("s3cret");
        assertThat(again.secrets().inputCipher().orElseThrow().decrypt(ciphertext)).isEqualTo("s3cret");
        assertThat(java.nio.file.Files.getPosixFilePermissions(data.resolve("encryption-key")))
                .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        assertThat(set.secrets().inputCipher().orElseThrow().decrypt(
                set.secrets().inputCipher().orElseThrow().encrypt("x"))).isEqualTo("x");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> again.secrets().inputCipher().orElseThrow()
                .decrypt(set.secrets().inputCipher().orElseThrow().encrypt("x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another encryption-key");
    }
}
