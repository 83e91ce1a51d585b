package io.millrace.config;

import io.millrace.core.flow.InputCipher;
import java.util.Base64;
import java.util.Optional;

/**
 * What keeps flows' secrets out of the engine's records. {@code inputCipher} encrypts {@code SECRET} inputs on the
 * gateway and decrypts them on the worker ({@code encryption-key}: 32 bytes in base64; none: a flow with a SECRET
 * input cannot be started).
 */
public record SecretSettings(Optional<InputCipher> inputCipher) {

    public static final String ENCRYPTION_KEY = "encryption-key";
    private static final String EXPECTED = "Expected " + ENCRYPTION_KEY + " to be " + InputCipher.KEY_BYTES
            + " bytes encoded in base64 (openssl rand -base64 32), but ";

    /**
     * {@code encryption-key}'s value parsed: empty is none; else base64 of exactly 32 bytes, or a
     * {@link ConfigException} that says what is wrong and where it came from, never the value.
     */
    static Optional<InputCipher> cipher(String value, String source) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(value.strip());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(EXPECTED + "it is not valid base64 (from " + source + ")");
        }
        if (key.length != InputCipher.KEY_BYTES) {
            throw new ConfigException(EXPECTED + "it decodes to " + key.length + " bytes (from " + source + ")");
        }
        return Optional.of(InputCipher.of(key));
    }
}
