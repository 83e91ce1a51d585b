package io.millrace.config;

/** A setting that cannot be used; the message names the setting, where it came from and what was expected. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
