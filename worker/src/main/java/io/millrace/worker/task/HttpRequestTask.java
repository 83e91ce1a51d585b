package io.millrace.worker.task;

import io.millrace.serdes.HttpTargets;
import io.millrace.config.HostRules;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.KeyManagementException;
import java.security.NoSuchAlgorithmException;
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
import java.util.function.BiPredicate;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * io.kestra.plugin.core.http.Request: sends one HTTP request and outputs the response: {@code uri} (as sent),
 * {@code code}, {@code headers} (lower-case name to list of values) and {@code body} (text, absent when the
 * response has none). A status of 400 or more fails the task unless {@code allowFailed} is true.
 * <p>
 * Properties: {@code uri} (required), {@code method} (default GET), {@code headers}, {@code body},
 * {@code formData} (URL-encoded, or multipart when {@code contentType} is multipart/form-data; wins over
 * {@code body}), {@code contentType}, {@code allowFailed} and {@code options} (see {@link HttpOptions}).
 * <p>
 * Every target, the first and each a redirect leads to, is checked by {@link HttpTargets} and then reached at the very
 * address checked: the request goes to that address, with the name in its Host header and, over TLS, in its SNI and
 * certificate check. Redirects are followed here, at most {@link #MAX_REDIRECTS}, as Java's client would (a 303, or a
 * POST answered 301 or 302, goes on as a GET without its body; https never leads to http); a redirect to another
 * scheme, host or port carries none of the request's headers but the body's Content-Type. Each exchange has its own
 * HTTP/1.1 client, closed at the end; an interruption aborts it.
 */
final class HttpRequestTask implements RunnableTask {

    static final int MAX_REDIRECTS = 5;
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE");
    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);
    private static final String FORM_URL_ENCODED = "application/x-www-form-urlencoded";
    private static final String MULTIPART = "multipart/form-data";

    private final HttpTargets targets;
    private final TrustManager[] trust;

    /**
     * @param trust what decides which servers' certificates to trust; null: the JVM's certificate authorities
     */
    HttpRequestTask(HttpTargets targets, TrustManager[] trust) {
        this.targets = targets;
        this.trust = trust == null ? null : trust.clone();
    }

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException, InterruptedException {
        TaskProperties props = new TaskProperties(invocation);
        HttpOptions options = HttpOptions.read(props);
        URI uri = uri(props);
        String method = method(props);
        boolean allowFailed = props.bool("allowFailed", options.allowFailed() != null && options.allowFailed());
        HttpRequest request = request(props, invocation.logger(), uri, method, options);

        HttpResponse<byte[]> response = send(props, invocation.logger(), request, options);
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
            if (header.getKey().trim().equalsIgnoreCase("Host")) {
                throw props.problem("header 'Host' cannot be sent: the worker sets it from 'uri'");
            }
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
     * Sends the request, and the request each redirect leads to, to checked targets, all within connectTimeout +
     * readTimeout from now.
     */
    private HttpResponse<byte[]> send(TaskProperties props, TaskLogger logger, HttpRequest first, HttpOptions options)
            throws TaskException, InterruptedException {
        Duration connect = options.connectTimeout() == null ? Duration.ZERO : options.connectTimeout();
        long deadline = System.nanoTime() + options.readTimeout().plus(connect).toNanos();
        HttpRequest request = first;
        for (int redirects = 0; ; redirects++) {
            HttpResponse<byte[]> response = exchange(props, request, target(props, request), options, deadline);
            URI next = options.followRedirects() ? redirection(props, request, response) : null;
            if (next == null) {
                return response;
            }
            if (redirects == MAX_REDIRECTS) {
                throw props.problem(first.method() + " " + first.uri() + " was redirected more than " + MAX_REDIRECTS
                        + " times; the last time to " + next);
            }
            logger.log("DEBUG", "Request '" + request.uri() + "' answered " + response.statusCode()
                    + ", redirecting to '" + next + "'");
            request = redirected(request, next, response.statusCode());
        }
    }

    private HttpTargets.Target target(TaskProperties props, HttpRequest request) throws TaskException {
        try {
            return targets.check(request.uri());
        } catch (HttpTargets.Refused e) {
            throw props.problem(request.method() + " " + request.uri() + " refused: " + e.getMessage(), e);
        } catch (UnknownHostException e) {
            throw props.problem("could not connect to " + request.uri() + ": no address for host '"
                    + request.uri().getHost() + "'", e);
        }
    }

    /** Where a redirect leads, when it is followed: null when the response is none, or leads from https to http. */
    private static URI redirection(TaskProperties props, HttpRequest request, HttpResponse<byte[]> response)
            throws TaskException {
        if (!REDIRECTS.contains(response.statusCode())) {
            return null;
        }
        String location = response.headers().firstValue("Location").orElse(null);
        if (location == null) {
            return null;
        }
        URI next;
        try {
            next = request.uri().resolve(new URI(location.trim()));
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw props.problem(request.method() + " " + request.uri() + " answered " + response.statusCode()
                    + " with a Location that is not a URI: '" + location + "'", e);
        }
        String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || next.getHost() == null) {
            throw props.problem(request.method() + " " + request.uri() + " answered " + response.statusCode()
                    + " with a Location that is not an http or https URL with a host: '" + location + "'");
        }
        boolean downgrade = scheme.equals("http") && request.uri().getScheme().equalsIgnoreCase("https");
        return downgrade ? null : next;
    }

    /** The request a redirect leads to, as Java's client makes it. */
    private static HttpRequest redirected(HttpRequest request, URI next, int status) {
        String method = status == 303 || (status == 301 || status == 302) && request.method().equals("POST")
                ? "GET" : request.method();
        boolean sameOrigin = next.getScheme().equalsIgnoreCase(request.uri().getScheme())
                && next.getRawAuthority().equalsIgnoreCase(request.uri().getRawAuthority());
        boolean keepBody = method.equals(request.method());
        // to another scheme, host or port, none of the flow's headers (an API key may be in any): the body's type only
        BiPredicate<String, String> kept = (name, value) -> name.equalsIgnoreCase("Content-Type") ? keepBody
                : sameOrigin;
        HttpRequest.Builder builder = HttpRequest.newBuilder(request, kept).uri(next);
        if (!keepBody) {
            builder.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return builder.build();
    }

    /**
     * Sends to the checked address and waits for the complete response until {@code deadline}. Whatever ends the wait
     * early (timeout, interruption) cancels the exchange, and the client is shut down in every case.
     */
    private HttpResponse<byte[]> exchange(TaskProperties props, HttpRequest request, HttpTargets.Target target,
            HttpOptions options, long deadline) throws TaskException, InterruptedException {
        HttpRequest pinned = pinned(props, request, target);
        SSLContext tls = tls(props);
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .sslContext(tls)
                .sslParameters(tlsParameters(props, tls, request.uri().getHost()));
        if (options.connectTimeout() != null) {
            builder.connectTimeout(options.connectTimeout());
        }
        HttpClient client = builder.build();
        CompletableFuture<HttpResponse<byte[]>> pending = null;
        try {
            pending = client.sendAsync(pinned, BoundedBody.handler(options.maxContentLength()));
            return pending.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
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

    /**
     * The request sent to {@code address} itself, never to a name looked up again: the URI names the address, and the
     * Host header the host the request was for.
     */
    private static HttpRequest pinned(TaskProperties props, HttpRequest request, HttpTargets.Target target)
            throws TaskException {
        URI direct;
        try {
            direct = target.direct();
        } catch (IllegalArgumentException e) {
            throw props.problem("could not address " + request.uri() + " at " + target.address().getHostAddress() + ": "
                    + e.getMessage(), e);
        }
        try {
            return HttpRequest.newBuilder(request, (name, value) -> true).uri(direct)
                    .setHeader("Host", target.host()).build();
        } catch (IllegalArgumentException e) {
            throw props.problem("the worker cannot set the Host header of " + request.uri() + " (" + e.getMessage()
                    + "): its JVM must run with -Djdk.httpclient.allowRestrictedHeaders=host, as the millrace launcher"
                    + " sets", e);
        }
    }

    /**
     * A TLS context of the exchange's own. Connections go to addresses, and a context's sessions are kept by address
     * and port: a shared one would let a request for one name resume the session of another name at that address,
     * without its certificate being checked against the new name.
     */
    private SSLContext tls(TaskProperties props) throws TaskException {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust, null);
            return context;
        } catch (NoSuchAlgorithmException | KeyManagementException e) {
            throw props.problem("TLS is not available on this worker: " + e.getMessage(), e);
        }
    }

    /** The TLS parameters that name the host (SNI), so that its certificate is checked against its name. */
    private static SSLParameters tlsParameters(TaskProperties props, SSLContext tls, String host) throws TaskException {
        SSLParameters parameters = tls.getDefaultSSLParameters();
        if (HostRules.literal(host) == null) {
            try {
                parameters.setServerNames(List.of(new SNIHostName(HostRules.name(host))));
            } catch (IllegalArgumentException e) {
                throw props.problem("host '" + host + "' is not a name TLS can carry: " + e.getMessage(), e);
            }
        }
        return parameters;
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
        return Failures.describe(t);
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
