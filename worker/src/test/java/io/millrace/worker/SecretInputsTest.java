package io.millrace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.expression.TaskSecrets;
import io.millrace.core.flow.InputCipher;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The SECRET inputs of a task record: decrypted on the worker and masked as secrets are. */
class SecretInputsTest {

    private static InputCipher cipher(int fill) {
        byte[] key = new byte[InputCipher.KEY_BYTES];
        Arrays.fill(key, (byte) fill);
        return InputCipher.of(key);
    }

    private static TaskSecrets secrets() {
        return new TaskSecrets(name -> {
            throw new AssertionError("no secret() here");
        });
    }

    @Test
    void shouldDecryptEncryptedInputsAndMaskTheirValues() throws Exception {
        // given
        var taskSecrets = secrets();
        Map<String, Object> variables = Map.of("inputs", Map.of("password", cipher(1).encrypt("s3cret-value"),
                "name", "plain"), "flow", Map.of("id", "f"));

        // when
        Map<String, Object> decrypted = new SecretInputs(Optional.of(cipher(1))).decrypt(variables, taskSecrets);

        // then
        assertThat(decrypted.get("inputs")).isEqualTo(Map.of("password", "s3cret-value", "name", "plain"));
        assertThat(decrypted.get("flow")).isEqualTo(Map.of("id", "f"));
        assertThat(taskSecrets.mask("pw=s3cret-value")).isEqualTo("pw=******");
    }

    @Test
    void shouldLeaveVariablesWithoutEncryptedInputsAsTheyAre() throws Exception {
        // given
        Map<String, Object> variables = Map.of("inputs", Map.of("name", "plain"));

        // when / then
        assertThat(new SecretInputs(Optional.empty()).decrypt(variables, secrets())).isSameAs(variables);
    }

    @Test
    void shouldSayWhyAnInputCannotBeDecryptedWithoutShowingIt() {
        // given
        Map<String, Object> variables = Map.of("inputs", Map.of("password", cipher(1).encrypt("s3cret-value")));

        // when / then
        assertThatThrownBy(() -> new SecretInputs(Optional.empty()).decrypt(variables, secrets()))
                .hasMessage("Expected this worker to decrypt the SECRET input 'password', but it has no encryption-key:"
                        + " give every worker the gateway's");
        assertThatThrownBy(() -> new SecretInputs(Optional.of(cipher(2))).decrypt(variables, secrets()))
                .hasMessage("Expected this worker to decrypt the SECRET input 'password', but it was encrypted with"
                        + " another encryption-key, or changed since (is this worker's encryption-key the gateway's?)");
    }
}
