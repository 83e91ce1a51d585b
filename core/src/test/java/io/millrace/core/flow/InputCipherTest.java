package io.millrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class InputCipherTest {

    private static InputCipher cipher(int fill) {
        byte[] key = new byte[InputCipher.KEY_BYTES];
        Arrays.fill(key, (byte) fill);
        return InputCipher.of(key);
    }

    @Test
    void shouldDecryptWhatItEncrypted() {
        // given
        InputCipher cipher = cipher(1);

        // when
        String encrypted = cipher.encrypt("pässword ✓");

        // then
        assertThat(encrypted).startsWith(InputCipher.PREFIX).doesNotContain("pässword");
        assertThat(InputCipher.isEncrypted(encrypted)).isTrue();
        assertThat(cipher.decrypt(encrypted)).isEqualTo("pässword ✓");
        assertThat(cipher.encrypt("pässword ✓")).as("a fresh nonce each time").isNotEqualTo(encrypted);
    }

    @Test
    void shouldRefuseValueOfAnotherKeyOrChanged() {
        // given
        String encrypted = cipher(1).encrypt("value");
        byte[] bytes = Base64.getDecoder().decode(encrypted.substring(InputCipher.PREFIX.length()));
        bytes[bytes.length - 1] ^= 1;
        String changed = InputCipher.PREFIX + Base64.getEncoder().encodeToString(bytes);

        // then
        assertThatThrownBy(() -> cipher(2).decrypt(encrypted)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("it was encrypted with another encryption-key, or changed since");
        assertThatThrownBy(() -> cipher(1).decrypt(changed)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cipher(1).decrypt(InputCipher.PREFIX + "%%")).hasMessageContaining("base64");
        assertThatThrownBy(() -> cipher(1).decrypt(InputCipher.PREFIX + "AAAA")).hasMessageContaining("too short");
        assertThatThrownBy(() -> cipher(1).decrypt("value")).hasMessage("it is not an encrypted value");
    }

    @Test
    void shouldRefuseKeyOfOtherLengthAndNeverShowIt() {
        assertThatThrownBy(() -> InputCipher.of(new byte[16])).hasMessage("Expected a key of 32 bytes, but it has 16");
        assertThat(cipher(7).toString()).doesNotContain("7").contains("cipher");
    }
}
