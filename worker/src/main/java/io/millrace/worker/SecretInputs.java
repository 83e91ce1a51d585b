package io.millrace.worker;

import io.millrace.config.SecretSettings;
import io.millrace.core.expression.TaskSecrets;
import io.millrace.core.flow.InputCipher;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Decrypts the SECRET inputs a task record carries (encrypted by the gateway, {@link InputCipher}): each encrypted
 * value in {@code inputs} becomes the value it holds, kept in the run's {@link TaskSecrets} so that its logs, outputs
 * and error are masked as a {@code secret('NAME')}'s are. Nothing else in the record is decrypted.
 */
final class SecretInputs {
    private final Optional<InputCipher> cipher;

    SecretInputs(Optional<InputCipher> cipher) {
        this.cipher = cipher;
    }

    /** Thrown when an input cannot be decrypted; the message names the input and the setting, never a value. */
    static final class UndecryptableInputException extends Exception {
        UndecryptableInputException(String message) {
            super(message);
        }
    }

    /** {@code variables} with their encrypted inputs decrypted into {@code secrets}; as they are when there is none. */
    Map<String, Object> decrypt(Map<String, Object> variables, TaskSecrets secrets)
            throws UndecryptableInputException {
        if (!(variables.get("inputs") instanceof Map<?, ?> inputs)
                || inputs.values().stream().noneMatch(InputCipher::isEncrypted)) {
            return variables;
        }
        var decrypted = new LinkedHashMap<Object, Object>(inputs);
        for (var entry : inputs.entrySet()) {
            if (InputCipher.isEncrypted(entry.getValue())) {
                decrypted.put(entry.getKey(), secrets.add(decrypt(entry.getKey(), (String) entry.getValue())));
            }
        }
        var with = new LinkedHashMap<>(variables);
        with.put("inputs", decrypted);
        return with;
    }

    private String decrypt(Object input, String encrypted) throws UndecryptableInputException {
        if (cipher.isEmpty()) {
            throw new UndecryptableInputException("Expected this worker to decrypt the SECRET input '" + input
                    + "', but it has no " + SecretSettings.ENCRYPTION_KEY + ": give every worker the gateway's");
        }
        try {
            return cipher.get().decrypt(encrypted);
        } catch (IllegalArgumentException e) {
            throw new UndecryptableInputException("Expected this worker to decrypt the SECRET input '" + input
                    + "', but " + e.getMessage() + " (is this worker's " + SecretSettings.ENCRYPTION_KEY
                    + " the gateway's?)");
        }
    }
}
