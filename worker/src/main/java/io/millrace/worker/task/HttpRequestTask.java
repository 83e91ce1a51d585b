package io.millrace.worker.task;

import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * io.kestra.plugin.core.http.Request: sends one HTTP request and outputs the response: {@code uri} (as sent),
 * {@code code}, {@code headers} (lower-case name to list of values) and {@code body} (text, absent when the
 * response has none). A status of 400 or more fails the task unless {@code allowFailed} is true.
 * <p>
 * Properties: {@code uri} (required), {@code method} (default GET), {@code headers}, {@code body},
 * {@code formData} (URL-encoded, or multipart when {@code contentType} is multipart/form-data; wins over
 * {@code body}), {@code contentType}, {@code allowFailed} and {@code options} (see {@link HttpOptions}).
 * Each run has its own HTTP/1.1 client, closed at the end; an interruption aborts the exchange.
 */
final class HttpRequestTask implements RunnableTask {

    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE");
    private static final String FORM_URL_ENCODED = "application/x-www-form-urlencoded";
    private static final String MULTIPART = "multipart/form-data";

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException, InterruptedException {
        TaskProperties props = new TaskProperties(invocation);
        HttpOptions options = HttpOptions.read(props);
        URI uri = uri(props);
        String method = method(props);
        boolean allowFailed = props.bool("allowFailed", options.allowFailed() != null && options.allowFailed());
        HttpRequest request = request(props, invocation.logger(), uri, method, options);

        HttpResponse<byte[]> response = exchange(props, request, options);
        invocation.logger().log("DEBUG", "Request '" + uri + "' answered " + response.statusCode());
        if (response.statusCode() >= 400 && !allowFailed) {
            throw props.problem(method + " " + uri + " answered HTTP " + response.statusCode()
                    + "; set allowFailed: true to accept such a status");
        }
        Map<String, Object> outputs = new LinkedHashMap<>();
        outputs.put("uri", uri.toString());
        outputs.put("code", response.statusCode());
        outputs.put("headers", headers(response.headers()));
        if (response.body().length > 0) {
            outputs.put("body", new String(response.body(), charset(response.headers(), options.defaultCharset())));
        }
        return TaskOutcome.success(outputs);
    }

    private static URI uri(TaskProperties props) throws TaskException {
        String text = props.requiredString("uri").trim();
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw props.problem("property 'uri' is not a valid URI: " + e.getMessage(), e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw props.problem("property 'uri' must be an http or https URL with a host, got '" + text + "'");
        }
        return uri;
    }

    private static String method(TaskProperties props) throws TaskException {
        String method = props.string("method");
        if (method == null) {
            return "GET";
        }
        String normalized = method.trim().toUpperCase(Locale.ROOT);
        if (!METHODS.contains(normalized)) {
            throw props.problem("property 'method' must be one of " + String.join(", ", new TreeSet<>(METHODS))
                    + ", got '" + method + "'");
        }
        return normalized;
    }

    private static HttpRequest request(TaskProperties props, TaskLogger logger, URI uri, String method, HttpOptions options)
            throws TaskException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri);
        String contentType = props.string("contentType");
        HttpRequest.BodyPublisher body;
        if (props.raw("formData") != null) {
            if (props.raw("body") != null) {
                // Kestra sends the form and drops the body; say so rather than drop it silently
                logger.log("WARN", "property 'body' is ignored because 'formData' is set");
            }
            Map<String, String> fields = formFields(props);
            if (contentType != null && contentType.trim().toLowerCase(Locale.ROOT).startsWith(MULTIPART)) {
                String boundary = "millrace-" + UUID.randomUUID();
                body = HttpRequest.BodyPublishers.ofByteArray(HttpForms.multipart(fields, boundary));
                contentType = MULTIPART + "; boundary=" + boundary;
            } else {
                body = HttpRequest.BodyPublishers.ofString(HttpForms.urlEncoded(fields), StandardCharsets.UTF_8);
                contentType = contentType == null ? FORM_URL_ENCODED : contentType;
            }
        } else {
            String text = props.string("body");
            body = text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text, StandardCharsets.UTF_8);
        }
        builder.method(method, body);
        if (contentType != null) {
            header(props, builder, "Content-Type", List.of(contentType));
        }
        if (options.basicAuthUser() != null && options.basicAuthPassword() != null) {
            String credentials = options.basicAuthUser() + ":" + options.basicAuthPassword();
            header(props, builder, "Authorization",
                    List.of("Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8))));
        }
        for (Map.Entry<String, List<String>> header : userHeaders(props).entrySet()) {
            header(props, builder, header.getKey(), header.getValue());
        }
        return builder.build();
    }

    /** Sets a header, replacing any value set before (so the flow's headers win over contentType). */
    private static void header(TaskProperties props, HttpRequest.Builder builder, String name, List<String> values)
            throws TaskException {
        try {
            for (int i = 0; i < values.size(); i++) {
                if (i == 0) {
                    builder.setHeader(name, values.get(i));
                } else {
                    builder.header(name, values.get(i));
                }
            }
        } catch (IllegalArgumentException e) {
            throw props.problem("header '" + name + "' cannot be sent: " + e.getMessage(), e);
        }
    }

    private static Map<String, List<String>> userHeaders(TaskProperties props) throws TaskException {
        Object raw = props.raw("headers");
        if (raw == null) {
            return Map.of();
        }
        if (!(raw instanceof Map<?, ?>)) {
            throw props.problem("property 'headers' must be a map of header names to values");
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (Map.Entry<?, ?> header : ((Map<?, ?>) props.deep("headers")).entrySet()) {
            String name = String.valueOf(header.getKey());
            List<String> values = new ArrayList<>();
            for (Object value : header.getValue() instanceof Collection<?> list ? list : List.of(String.valueOf(header.getValue()))) {
                values.add(scalar(props, "headers." + name, value));
            }
            headers.put(name, values);
        }
        return headers;
    }

    private static Map<String, String> formFields(TaskProperties props) throws TaskException {
        if (!(props.raw("formData") instanceof Map<?, ?>)) {
            throw props.problem("property 'formData' must be a map of field names to values");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (Map.Entry<?, ?> field : ((Map<?, ?>) props.deep("formData")).entrySet()) {
            String name = String.valueOf(field.getKey());
            String value = scalar(props, "formData." + name, field.getValue());
            if (value.startsWith("kestra://")) {
                throw props.problem("property 'formData." + name + "' is an internal-storage file, which is not supported");
            }
            fields.put(name, value);
        }
        return fields;
    }

    private static String scalar(TaskProperties props, String name, Object value) throws TaskException {
        if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
            throw props.problem("property '" + name + "' must be a text value, got " + (value instanceof Map<?, ?> ? "an object" : "a list"));
        }
        return value == null ? "" : String.valueOf(value);
    }

    /**
     * Sends and waits for the complete response for at most connectTimeout + readTimeout. Whatever ends the wait
     * early (timeout, interruption) cancels the exchange, and the client is shut down in every case.
     */
    private static HttpResponse<byte[]> exchange(TaskProperties props, HttpRequest request, HttpOptions options)
            throws TaskException, InterruptedException {
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(options.followRedirects() ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER);
        if (options.connectTimeout() != null) {
            builder.connectTimeout(options.connectTimeout());
        }
        HttpClient client = builder.build();
        CompletableFuture<HttpResponse<byte[]>> pending = null;
        try {
            pending = client.sendAsync(request, BoundedBody.handler(options.maxContentLength()));
            Duration wait = options.readTimeout().plus(options.connectTimeout() == null ? Duration.ZERO : options.connectTimeout());
            return pending.get(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw props.problem("no complete response from " + request.method() + " " + request.uri()
                    + " within options.readTimeout " + options.readTimeout(), e);
        } catch (ExecutionException e) {
            throw props.problem(failure(request, options, e.getCause()), e.getCause());
        } finally {
            if (pending != null) {
                pending.cancel(true);
            }
            client.shutdownNow();
        }
    }

    private static String failure(HttpRequest request, HttpOptions options, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof BoundedBody.TooLarge tooLarge) {
                return "the response body of " + request.method() + " " + request.uri() + " is larger than the limit of "
                        + tooLarge.limit + " bytes" + (tooLarge.limit == HttpOptions.MAX_CONTENT_LENGTH ? " (10 MiB)" : "");
            }
            if (t instanceof HttpConnectTimeoutException) {
                return "could not connect to " + request.uri() + " within options.connectTimeout " + options.connectTimeout();
            }
            if (t instanceof ConnectException) {
                return "could not connect to " + request.uri() + ": " + describe(t);
            }
        }
        return request.method() + " " + request.uri() + " failed: " + describe(cause);
    }

    private static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    /** Header names in lower case (as HTTP/2 writes them), pseudo-headers left out, sorted for stable outputs. */
    private static Map<String, Object> headers(HttpHeaders headers) {
        Map<String, List<String>> byName = new TreeMap<>();
        headers.map().forEach((name, values) -> {
            if (!name.startsWith(":")) {
                byName.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>()).addAll(values);
            }
        });
        return new LinkedHashMap<>(byName);
    }

    /** The charset the response's Content-Type names, else {@code fallback}. */
    private static Charset charset(HttpHeaders headers, Charset fallback) {
        for (String parameter : headers.firstValue("Content-Type").orElse("").split(";")) {
            String[] pair = parameter.trim().split("=", 2);
            if (pair.length == 2 && pair[0].trim().equalsIgnoreCase("charset")) {
                try {
                    return Charset.forName(pair[1].trim().replace("\"", ""));
                } catch (IllegalArgumentException e) {
                    return fallback;
                }
            }
        }
        return fallback;
    }
}
