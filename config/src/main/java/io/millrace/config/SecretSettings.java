package io.millrace.config;

import io.millrace.core.flow.InputCipher;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What keeps flows' secrets out of the engine's records. {@code inputCipher} encrypts {@code SECRET} inputs on the
 * gateway and decrypts them on the worker ({@code encryption-key}: 32 bytes in base64; none: a flow with a SECRET
 * input cannot be started). {@code webhookDropHeaders} are the headers, in lower case, that a webhook call's trigger
 * variables never hold ({@code webhook-drop-headers}, comma-separated, compared ignoring case).
 */
public record SecretSettings(Optional<InputCipher> inputCipher, Set<String> webhookDropHeaders) {

    public static final String ENCRYPTION_KEY = "encryption-key";
    public static final String WEBHOOK_DROP_HEADERS = "webhook-drop-headers";
    static final String DEFAULT_DROP_HEADERS = "Authorization,Cookie,Proxy-Authorization";
    private static final String EXPECTED = "Expected " + ENCRYPTION_KEY + " to be " + InputCipher.KEY_BYTES
            + " bytes encoded in base64 (openssl rand -base64 32), but ";

    public SecretSettings {
        webhookDropHeaders = Set.copyOf(webhookDropHeaders);
    }

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

    /** {@code webhook-drop-headers}' names, trimmed and in lower case; blanks skipped. */
    static Set<String> headers(String value) {
        var names = new TreeSet<String>();
        for (String name : value == null ? new String[0] : value.split(",")) {
            if (!name.isBlank()) {
                names.add(name.strip().toLowerCase(Locale.ROOT));
            }
        }
        return names;
    }
}
