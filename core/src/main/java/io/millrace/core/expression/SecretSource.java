package io.millrace.core.expression;

/**
 * Where {@code secret('NAME')} takes a value from: the worker's environment and secrets directory. Only a worker has
 * one, and it reaches expressions only through the {@link TaskSecrets} of one task run.
 */
@FunctionalInterface
public interface SecretSource {

    /** The value of the secret {@code name}, never null; a {@link SecretException} when there is none or unreadable. */
    String value(String name) throws SecretException;
}
