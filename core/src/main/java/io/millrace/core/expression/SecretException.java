package io.millrace.core.expression;

/**
 * A secret could not be given: there is none of that name, its name is not a secret's name, or its value cannot be
 * read. The message says which, names the secret and where it was looked for, and never holds a value.
 */
public final class SecretException extends Exception {

    public SecretException(String message) {
        super(message);
    }
}
