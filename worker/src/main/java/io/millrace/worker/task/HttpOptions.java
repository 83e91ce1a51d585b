package io.millrace.worker.task;

import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code options} of an HTTP request task, rendered. Options that only tune a connection pool or the client's
 * own logging are accepted and ignored (each run has its own client); any other unknown option fails the task
 * rather than being silently dropped.
 *
 * @param connectTimeout    how long to wait for the connection; null: no limit of its own
 * @param readTimeout       how long to wait for the complete response (status, headers, body) once connected
 * @param maxContentLength  the largest response body accepted, in bytes
 * @param allowFailed       {@code options.allowFailed} of newer Kestra versions; null when absent
 * @param defaultCharset    decodes a response body whose Content-Type names no charset
 */
record HttpOptions(Duration connectTimeout, Duration readTimeout, int maxContentLength, boolean followRedirects,
                   Boolean allowFailed, String basicAuthUser, String basicAuthPassword, Charset defaultCharset) {

    static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);

    /**
     * The largest response body a task keeps, as Kestra's default: outputs travel in Kafka records and the
     * execution's state, so a result the broker refuses as too large still ends FAILED, saying so.
     */
    static final int MAX_CONTENT_LENGTH = 10 * 1024 * 1024;

    static final HttpOptions DEFAULTS = new HttpOptions(null, DEFAULT_READ_TIMEOUT, MAX_CONTENT_LENGTH, true, null,
            null, null, StandardCharsets.UTF_8);

    private static final Set<String> SUPPORTED = Set.of("connectTimeout", "readTimeout", "maxContentLength",
            "followRedirects", "allowFailed", "basicAuthUser", "basicAuthPassword", "defaultCharset");
    private static final Set<String> IGNORED = Set.of("readIdleTimeout", "connectionPoolIdleTimeout", "logLevel");

    static HttpOptions read(TaskProperties props) throws TaskException {
        Object raw = props.raw("options");
        if (raw == null) {
            return DEFAULTS;
        }
        if (!(raw instanceof Map<?, ?>)) {
            throw props.problem("property 'options' must be a map of option names to values");
        }
        Map<?, ?> options = (Map<?, ?>) props.deep("options");
        for (Object name : options.keySet()) {
            if (!SUPPORTED.contains(String.valueOf(name)) && !IGNORED.contains(String.valueOf(name))) {
                Set<String> known = new TreeSet<>(SUPPORTED);
                known.addAll(IGNORED);
                throw props.problem("option '" + name + "' is not supported; options are " + known);
            }
        }
        return new HttpOptions(
                positiveDuration(props, options, "connectTimeout", null),
                positiveDuration(props, options, "readTimeout", DEFAULT_READ_TIMEOUT),
                maxContentLength(props, options.get("maxContentLength")),
                options.get("followRedirects") == null || props.booleanOf("options.followRedirects", options.get("followRedirects")),
                options.get("allowFailed") == null ? null : props.booleanOf("options.allowFailed", options.get("allowFailed")),
                text(options.get("basicAuthUser")),
                text(options.get("basicAuthPassword")),
                charset(props, options.get("defaultCharset")));
    }

    private static Duration positiveDuration(TaskProperties props, Map<?, ?> options, String name, Duration fallback)
            throws TaskException {
        Object value = options.get(name);
        if (value == null) {
            return fallback;
        }
        Duration duration = props.durationOf("options." + name, String.valueOf(value));
        if (duration.isZero()) {
            throw props.problem("property 'options." + name + "' must be positive, got '" + value + "'");
        }
        return duration;
    }

    private static int maxContentLength(TaskProperties props, Object value) throws TaskException {
        if (value == null) {
            return MAX_CONTENT_LENGTH;
        }
        long length;
        try {
            length = Long.parseLong(String.valueOf(value).trim());
        } catch (NumberFormatException e) {
            throw props.problem("property 'options.maxContentLength' must be a number of bytes, got '" + value + "'", e);
        }
        if (length <= 0 || length > MAX_CONTENT_LENGTH) {
            throw props.problem("property 'options.maxContentLength' must be between 1 and " + MAX_CONTENT_LENGTH
                    + " bytes (10 MiB), got " + length);
        }
        return (int) length;
    }

    private static Charset charset(TaskProperties props, Object value) throws TaskException {
        if (value == null) {
            return StandardCharsets.UTF_8;
        }
        try {
            return Charset.forName(String.valueOf(value).trim());
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            throw props.problem("property 'options.defaultCharset' names no known charset: '" + value + "'", e);
        }
    }

    private static String text(Object value) {
        return value == null ? null : String.valueOf(value);
    }
}
