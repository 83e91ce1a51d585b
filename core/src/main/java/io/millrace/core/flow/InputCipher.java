package io.millrace.core.flow;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts and decrypts the values of {@code SECRET} inputs with the {@code encryption-key} (AES-256-GCM, a random
 * 12-byte nonce per value). An encrypted value is text: {@link #PREFIX} then the nonce, ciphertext and tag in base64,
 * so that whoever holds it (the executor, the topics, the API's masking) can tell it is one without the key. The
 * gateway encrypts, the worker decrypts; nothing else holds a key. An instance never shows its key.
 */
public final class InputCipher {

    /** What every encrypted value starts with; no other input may start with it. */
    public static final String PREFIX = "millrace:encrypted:v1:";
    public static final int KEY_BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private InputCipher(byte[] key) {
        this.key = new SecretKeySpec(key, "AES");
    }

    /** A cipher with a key of {@value #KEY_BYTES} bytes; any other length is refused (the message shows no key). */
    public static InputCipher of(byte[] key) {
        if (key == null || key.length != KEY_BYTES) {
            throw new IllegalArgumentException("Expected a key of " + KEY_BYTES + " bytes, but it has "
                    + (key == null ? 0 : key.length));
        }
        return new InputCipher(key.clone());
    }

    /** Whether {@code value} is an encrypted value (by its form; whether it decrypts is for the worker to find). */
    public static boolean isEncrypted(Object value) {
        return value instanceof String text && text.startsWith(PREFIX);
    }

    /** {@code plain} encrypted: a fresh nonce each time, so equal values encrypt differently. */
    public String encrypt(String plain) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            byte[] sealed = cipher.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            byte[] all = Arrays.copyOf(nonce, NONCE_BYTES + sealed.length);
            System.arraycopy(sealed, 0, all, NONCE_BYTES, sealed.length);
            return PREFIX + Base64.getEncoder().encodeToString(all);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available in this JVM: " + e.getMessage(), e);
        }
    }

    /**
     * The value {@code encrypted} holds; {@link IllegalArgumentException} when it is not an encrypted value, or was
     * encrypted with another key or changed since (the message shows neither value nor key).
     */
    public String decrypt(String encrypted) {
        if (!isEncrypted(encrypted)) {
            throw new IllegalArgumentException("it is not an encrypted value");
        }
        byte[] all;
        try {
            all = Base64.getDecoder().decode(encrypted.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("it is not valid base64 after " + PREFIX);
        }
        if (all.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new IllegalArgumentException("it is too short to be an encrypted value");
        }
        byte[] plain;
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, all, 0, NONCE_BYTES));
            plain = cipher.doFinal(all, NONCE_BYTES, all.length - NONCE_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("it was encrypted with another encryption-key, or changed since");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(plain)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("it does not hold UTF-8 text");
        }
    }

    @Override
    public String toString() {
        return "(an AES-256-GCM input cipher)";
    }
}
