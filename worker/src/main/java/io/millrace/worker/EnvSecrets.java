package io.millrace.worker;

import io.millrace.core.expression.SecretException;
import java.nio.charset.CharacterCodingException;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Secrets from environment variables, as Kestra's open-source edition reads them: {@code SECRET_<NAME>} holds the
 * value of the secret {@code NAME} encoded in base64 (line breaks and other white space in it are ignored, as
 * {@code base64} wraps its output), the value being UTF-8 text. Names are compared upper-cased, so
 * {@code secret('db_password')} reads {@code SECRET_DB_PASSWORD}. The variables are taken once, when made; a value is
 * decoded when asked for, so a bad one fails only the task runs that use it, with a message that shows no part of it.
 */
final class EnvSecrets {
    static final String PREFIX = "SECRET_";

    /** Encoded values by upper-cased name; of two variables that differ only in case, the upper-case one. */
    private final Map<String, Variable> variables = new HashMap<>();

    private record Variable(String name, String encoded) {
    }

    EnvSecrets(Map<String, String> environment) {
        environment.forEach((name, value) -> {
            if (name.startsWith(PREFIX) && name.length() > PREFIX.length() && value != null) {
                String key = upper(name.substring(PREFIX.length()));
                if (name.equals(PREFIX + key) || !variables.containsKey(key)) {
                    variables.put(key, new Variable(name, value));
                }
            }
        });
    }

    /** The name of the variable that would hold the secret {@code name}. */
    static String variableOf(String name) {
        return PREFIX + upper(name);
    }

    /** The decoded value of the secret {@code name}; empty when no variable holds it. */
    Optional<String> value(String name) throws SecretException {
        Variable variable = variables.get(upper(name));
        if (variable == null) {
            return Optional.empty();
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(variable.encoded().replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw new SecretException("Expected the environment variable " + variable.name() + " to hold the secret '"
                    + name + "' encoded in base64, but it is not valid base64");
        }
        try {
            return Optional.of(StrictUtf8.decode(bytes));
        } catch (CharacterCodingException e) {
            throw new SecretException("Expected the environment variable " + variable.name() + " to hold the secret '"
                    + name + "' as UTF-8 text encoded in base64, but the decoded bytes are not UTF-8 text");
        }
    }

    private static String upper(String name) {
        return name.toUpperCase(Locale.ROOT);
    }
}
