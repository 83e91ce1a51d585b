package io.millrace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.expression.SecretException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where {@code secret('NAME')} finds values on a worker: the environment, then secrets-dir. */
class WorkerSecretsTest {

    @TempDir
    Path dir;

    private static String base64(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    private static WorkerSecrets environment(Map<String, String> variables) {
        return WorkerSecrets.of(variables, Optional.empty());
    }

    @Test
    void shouldDecodeABase64EnvironmentVariableWhateverTheNamesCase() throws Exception {
        // given
        var secrets = environment(Map.of("SECRET_DB_PASSWORD", base64("pässwörd\n"), "PATH", "/bin"));

        // when / then
        assertThat(secrets.value("db_password")).isEqualTo("pässwörd\n");
        assertThat(secrets.value("DB_Password")).isEqualTo("pässwörd\n");
    }

    @Test
    void shouldIgnoreLineBreaksInTheBase64AsBase64WrapsIt() throws Exception {
        // given
        String encoded = base64("a value long enough to be wrapped by base64 at seventy-six characters a line");
        var secrets = environment(Map.of("SECRET_LONG", encoded.substring(0, 40) + "\n" + encoded.substring(40)));

        // when / then
        assertThat(secrets.value("long")).startsWith("a value long enough");
    }

    @Test
    void shouldSayAnInvalidBase64ValueIsInvalidWithoutShowingIt() {
        // given
        var secrets = environment(Map.of("SECRET_TOKEN", "not base64: p@ss"));

        // when / then
        assertThatThrownBy(() -> secrets.value("token"))
                .isInstanceOf(SecretException.class)
                .hasMessage("Expected the environment variable SECRET_TOKEN to hold the secret 'token' encoded in base64,"
                        + " but it is not valid base64")
                .hasMessageNotContaining("p@ss");
    }

    @Test
    void shouldSayADecodedValueThatIsNotUtf8IsNotText() {
        // given
        var secrets = environment(Map.of("SECRET_BIN", Base64.getEncoder().encodeToString(new byte[] {(byte) 0xff, 1})));

        // when / then
        assertThatThrownBy(() -> secrets.value("bin")).hasMessageContaining("the decoded bytes are not UTF-8 text");
    }

    @Test
    void shouldNameWhereItLookedForAMissingSecret() {
        // when / then
        assertThatThrownBy(() -> environment(Map.of()).value("api_key"))
                .isInstanceOf(SecretException.class)
                .hasMessage("Expected a secret named 'api_key', but there is none: this worker has no environment"
                        + " variable SECRET_API_KEY and no secrets-dir");
        assertThatThrownBy(() -> WorkerSecrets.of(Map.of(), Optional.of(dir)).value("api_key"))
                .hasMessage("Expected a secret named 'api_key', but there is none: this worker has no environment"
                        + " variable SECRET_API_KEY and no file 'api_key' in its secrets-dir");
    }

    @Test
    void shouldReadAFileOfTheSecretsDirAsItIsWhateverTheNamesCase() throws Exception {
        // given
        Files.writeString(dir.resolve("db-password"), "s3cret\n");
        var secrets = WorkerSecrets.of(Map.of(), Optional.of(dir));

        // when / then
        assertThat(secrets.value("db-password")).isEqualTo("s3cret\n");
        assertThat(secrets.value("DB-PASSWORD")).isEqualTo("s3cret\n");
    }

    @Test
    void shouldReadASecretMountedAsKubernetesDoesAndSeeItRotated() throws Exception {
        // given: name -> ..data/name, ..data -> ..2025_01_01 (a Secret volume's layout)
        Path first = Files.createDirectory(dir.resolve("..2025_01_01"));
        Files.writeString(first.resolve("token"), "one");
        Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
        Files.createSymbolicLink(dir.resolve("token"), Path.of("..data", "token"));
        var secrets = WorkerSecrets.of(Map.of(), Optional.of(dir));
        assertThat(secrets.value("token")).isEqualTo("one");

        // when: Kubernetes swaps ..data for a new version
        Path second = Files.createDirectory(dir.resolve("..2025_02_01"));
        Files.writeString(second.resolve("token"), "two");
        Files.delete(dir.resolve("..data"));
        Files.createSymbolicLink(dir.resolve("..data"), second.getFileName());

        // then
        assertThat(secrets.value("token")).isEqualTo("two");
        assertThatThrownBy(() -> secrets.value("..data")).hasMessageContaining("Expected a secret's name");
    }

    @Test
    void shouldTakeTheEnvironmentBeforeTheSecretsDir() throws Exception {
        // given
        Files.writeString(dir.resolve("both"), "from the file");
        var secrets = WorkerSecrets.of(Map.of("SECRET_BOTH", base64("from the environment")), Optional.of(dir));

        // when / then
        assertThat(secrets.value("both")).isEqualTo("from the environment");
    }

    @Test
    void shouldRefuseANameThatCouldReachOutsideTheSecretsDir() throws Exception {
        // given
        Files.writeString(dir.resolve("outside"), "not a secret");
        Path secretsDir = Files.createDirectory(dir.resolve("secrets"));
        var secrets = WorkerSecrets.of(Map.of(), Optional.of(secretsDir));

        // when / then
        for (String name : new String[] {"../outside", "/etc/passwd", "", ".hidden", "a b", "x".repeat(254)}) {
            assertThatThrownBy(() -> secrets.value(name)).as(name)
                    .isInstanceOf(SecretException.class)
                    .hasMessageStartingWith("Expected a secret's name of letters, digits, '_', '-' and '.'");
        }
    }

    @Test
    void shouldRefuseAFileLargerThanTheBound() throws Exception {
        // given
        Files.write(dir.resolve("big"), new byte[DirSecrets.MAX_BYTES + 1]);
        var secrets = WorkerSecrets.of(Map.of(), Optional.of(dir));

        // when / then
        assertThatThrownBy(() -> secrets.value("big")).hasMessageContaining("to be at most 1048576 bytes");
    }

    @Test
    void shouldRefuseToStartWithASecretsDirThatIsNoFolder() {
        // when / then
        assertThatThrownBy(() -> WorkerSecrets.of(Map.of(), Optional.of(dir.resolve("missing"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Expected secrets-dir").hasMessageContaining("(it does not exist)");
    }
}
