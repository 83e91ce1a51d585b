package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ApiAccess;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Json;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway as its role runs it (bearer tokens required), on the shared broker, with small bounds: who may call it,
 * how much a call may send, how many may wait, and that no error answer tells anything of the internals. No executor
 * runs: a waiting request waits until its timeout.
 */
class GatewaySecurityTest {
    private static final String TOKEN = "t0ken-" + UUID.randomUUID();
    private static final String NAMESPACE = "company.team";
    private static final List<String> INTERNALS = List.of("Exception", "at io.", "at org.", "at java.", "io.millrace",
            "org.eclipse", "jakarta.", "java.", "kafka.", "<html", "Caused by");

    @TempDir
    static Path stateDir;

    private static Gateway gateway;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startGateway() throws InterruptedException {
        gateway = Gateway.start(config(Map.of("auth-tokens", "other-token-0123456789," + TOKEN, "max-request-bytes", "2048",
                "max-request-header-bytes", "2048", "max-wait-requests", "1", "wait-timeout", "PT8S",
                "max-webhook-wait-requests", "1", "webhook-rate-per-key", "2")));
        assertThat(gateway.awaitReady(Duration.ofSeconds(30))).as("gateway ready").isTrue();
        assertThat(send("POST", "/api/v1/flows", TOKEN, Map.of(), """
                id: guarded
                namespace: company.team
                triggers:
                  - {id: hook, type: io.kestra.plugin.core.trigger.Webhook, key: s3cr3t-key-0123456789}
                  - {id: waiting, type: io.kestra.plugin.core.trigger.Webhook, key: wait-key-0123456789, wait: true}
                  - {id: broken, type: io.kestra.plugin.core.trigger.Webhook, key: broken-key-0123456789,
                     inputs: {x: "{{ 1 / 0 }}"}}
                  - {id: limited, type: io.kestra.plugin.core.trigger.Webhook, key: limited-key-0123456789}
                tasks:
                  - {id: say, type: log, message: hello}
                """).status()).isEqualTo(200);
    }

    @AfterAll
    static void stopGateway() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void shouldRefuseToStartTheGatewayRoleWithoutAToken() {
        assertThatThrownBy(() -> Gateway.start(config(Map.of())))
                .isInstanceOf(io.millrace.config.ConfigException.class)
                .hasMessageContaining("auth-tokens")
                .hasMessageContaining("auth-tokens-file");
    }

    @Test
    void shouldAnswer401WithoutOrWithAWrongToken() {
        for (String authorization : new String[] {null, "Bearer wrong", "Bearer " + TOKEN + "x", "Basic " + TOKEN,
                "Bearer", "bearer " + TOKEN.substring(1)}) {
            // when
            var answer = sendRaw("GET", "/api/v1/flows/" + NAMESPACE + "/guarded", authorization, Map.of(), null);

            // then
            assertThat(answer.status()).as(String.valueOf(authorization)).isEqualTo(401);
            assertThat(answer.headers().firstValue("WWW-Authenticate")).contains("Bearer");
            assertThat(answer.json().path("message").asText()).startsWith("Unauthorized");
            assertThat(answer.json().has("details")).isFalse();
        }
        // an unknown route is no different: nothing tells what exists
        assertThat(send("GET", "/api/v1/nothing-here", null, Map.of(), null).status()).isEqualTo(401);
        assertThat(send("POST", "/api/v1/executions/" + NAMESPACE + "/guarded", "wrong", Map.of(), "").status())
                .isEqualTo(401);
        assertThat(send("GET", "/api/v1/flows/" + NAMESPACE + "/guarded/graph", "wrong", Map.of(), null).status())
                .isEqualTo(401);
    }

    @Test
    void shouldServeACallWithAnyConfiguredTokenInAnyCaseOfTheScheme() {
        // when
        var answer = sendRaw("GET", "/api/v1/flows/" + NAMESPACE + "/guarded", "bearer " + TOKEN, Map.of(), null);
        var other = send("GET", "/api/v1/flows/" + NAMESPACE + "/guarded", "other-token-0123456789", Map.of(), null);

        // then
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.json().path("id").asText()).isEqualTo("guarded");
        assertThat(other.status()).isEqualTo(200);
        assertThat(send("GET", "/api/v1/nothing-here", TOKEN, Map.of(), null).status()).isEqualTo(404);
    }

    @Test
    void shouldAcceptExactlyTheConfiguredTokensWhateverTheirLength() {
        // given
        var tokens = tokens(List.of("abc", TOKEN));

        // then: a prefix, an extension, another length, another scheme: all refused; both tokens accepted, as admins
        assertThat(tokens.principal("Bearer abc")).hasValueSatisfying(p -> assertThat(p.mayEverywhere(Role.ADMIN))
                .isTrue());
        assertThat(tokens.principal("Bearer " + TOKEN)).isPresent();
        assertThat(tokens.principal("Bearer ab")).isEmpty();
        assertThat(tokens.principal("Bearer abcd")).isEmpty();
        assertThat(tokens.principal("Bearer " + TOKEN.repeat(10))).isEmpty();
        assertThat(tokens.principal("Token abc")).isEmpty();
        assertThat(tokens.principal(null)).isEmpty();
        assertThat(tokens(List.of()).principal("Bearer ")).isEmpty();
    }

    @Test
    void shouldCompareAWebhooksKeyThroughDigestsToo() {
        assertThat(BearerTokens.sameSecret("hook-key", "hook-key")).isTrue();
        assertThat(BearerTokens.sameSecret("hook-ke", "hook-key")).isFalse();
        assertThat(BearerTokens.sameSecret("hook-key", null)).isFalse();
        assertThat(BearerTokens.sameSecret(null, "hook-key")).isFalse();
    }

    @Test
    void shouldLeaveHealthAndWebhooksOpenTheWebhookByItsKey() {
        // when
        var health = send("GET", "/health", null, Map.of(), null);
        String webhooks = "/api/v1/executions/webhook/" + NAMESPACE + "/";
        var hook = send("POST", webhooks + "guarded/s3cr3t-key-0123456789", null, Map.of(), "{}");
        var wrongKey = send("POST", webhooks + "guarded/guess", null, Map.of(), "{}");

        // then
        assertThat(health.status()).isEqualTo(200);
        assertThat(hook.status()).isEqualTo(200);
        assertThat(hook.json().path("state").path("current").asText()).isEqualTo("CREATED");
        assertThat(wrongKey.status()).isEqualTo(404);
        // a path that only looks like a webhook's is guarded
        assertThat(send("GET", webhooks + "guarded/s3cr3t-key-0123456789/more", null, Map.of(), null).status())
                .isEqualTo(401);
    }

    @Test
    void shouldRefuseAWebhooksCallsPastItsRateWithoutNamingItsKey() {
        String hook = "/api/v1/executions/webhook/" + NAMESPACE + "/guarded/limited-key-0123456789";

        // when: more calls at once than webhook-rate-per-key (2) takes
        var answers = new java.util.ArrayList<Answer>();
        for (int i = 0; i < 4; i++) {
            answers.add(send("POST", hook, null, Map.of(), "{}"));
        }

        // then
        assertThat(answers).extracting(Answer::status).contains(200).contains(429);
        Answer refused = answers.stream().filter(a -> a.status() == 429).findFirst().orElseThrow();
        assertThat(refused.headers().firstValue("Retry-After")).contains("1");
        assertThat(refused.json().path("message").asText()).contains("webhook-rate-per-key")
                .doesNotContain("limited-key");
    }

    @Test
    void shouldRefuseAFlowWhoseWebhookKeyIsShort() {
        // when
        var answer = send("POST", "/api/v1/flows", TOKEN, Map.of(), """
                id: short-key
                namespace: company.team
                triggers:
                  - {id: hook, type: io.kestra.plugin.core.trigger.Webhook, key: abc123}
                tasks:
                  - {id: say, type: log, message: hello}
                """);

        // then
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.body()).contains("key to have at least 16 characters").doesNotContain("abc123");
    }

    @Test
    void shouldAnswer413ForABodyOverTheBoundDeclaredOrChunked() {
        String big = "id: big\nnamespace: company.team\n# " + "x".repeat(4096) + "\ntasks: []\n";

        // when
        var declared = send("POST", "/api/v1/flows", TOKEN, Map.of(), big);
        var chunked = sendChunked("/api/v1/flows", big);

        // then
        for (var answer : List.of(declared, chunked)) {
            assertThat(answer.status()).isEqualTo(413);
            assertThat(answer.json().path("message").asText()).contains("max-request-bytes = 2048");
            assertNoInternals(answer.body());
        }
    }

    @Test
    void shouldAnswer431ForHeadersOverTheBound() {
        // when
        var answer = send("GET", "/api/v1/flows/" + NAMESPACE + "/guarded", TOKEN, Map.of("X-Padding", "p".repeat(4096)),
                null);

        // then
        assertThat(answer.status()).isEqualTo(431);
        assertThat(answer.json().path("message").asText()).contains("max-request-header-bytes = 2048");
        assertNoInternals(answer.body());
    }

    @Test
    void shouldAnswer429WithRetryAfterWhenTooManyRequestsWait() throws Exception {
        // given: one request waits (no executor runs here: it waits until its timeout)
        String start = "/api/v1/executions/" + NAMESPACE + "/guarded?wait=true&timeout=";
        CompletableFuture<Answer> first = null;

        // when: another wait while the first still waits (a probe may come first and take the place: then again)
        Answer refused = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(6).toNanos();
        while (refused == null && System.nanoTime() < deadline) {
            if (first == null || first.isDone()) {
                first = sendAsync("POST", start + "PT8S", TOKEN, Map.of(), "");
                Thread.sleep(200);
            }
            var second = send("POST", start + "PT0.2S", TOKEN, Map.of(), "");
            refused = second.status() == 429 && !first.isDone() ? second : null;
        }
        // a webhook that waits has places of its own: taken while ?wait=true's are, refused past its own
        String hook = "/api/v1/executions/webhook/" + NAMESPACE + "/guarded/wait-key-0123456789";
        var firstHook = sendAsync("POST", hook, null, Map.of(), "");
        Thread.sleep(300);
        var secondHook = send("POST", hook, null, Map.of(), "");
        boolean firstHookStillWaited = !firstHook.isDone();

        // then
        assertThat(refused).as("a second waiter refused while the first waits").isNotNull();
        assertThat(refused.headers().firstValue("Retry-After")).contains("1");
        assertThat(refused.json().path("message").asText()).contains("max-wait-requests = 1");
        assertThat(firstHookStillWaited).as("the webhook waits while a ?wait=true does").isTrue();
        assertThat(secondHook.status()).isEqualTo(429);
        assertThat(secondHook.json().path("message").asText()).contains("max-webhook-wait-requests = 1");
        assertThat(first.join().status()).isEqualTo(202);
        assertThat(firstHook.join().status()).isEqualTo(202);
        // once the first is answered, its place is free again
        assertThat(send("POST", start + "PT0.2S", TOKEN, Map.of(), "").status()).isEqualTo(202);
    }

    @Test
    void shouldAnswerEveryKindOfErrorWithoutInternals() throws IOException {
        String flows = "/api/v1/flows";
        String start = "/api/v1/executions/" + NAMESPACE + "/guarded";
        var answers = new HashMap<String, Answer>();
        answers.put("malformed JSON", send("POST", start, TOKEN, Map.of(), "{\"inputs\": [1,"));
        answers.put("JSON not an object", send("POST", start, TOKEN, Map.of(), "[1]"));
        answers.put("malformed YAML", send("POST", flows, TOKEN, Map.of(), "id: [unclosed\n  - : :"));
        answers.put("YAML not a flow", send("POST", flows, TOKEN, Map.of(), "just text"));
        answers.put("bad wait", send("POST", start + "?wait=maybe", TOKEN, Map.of(), ""));
        answers.put("bad timeout", send("POST", start + "?wait=true&timeout=soon", TOKEN, Map.of(), ""));
        answers.put("bad size", send("GET", "/api/v1/executions/search?size=many", TOKEN, Map.of(), null));
        answers.put("bad state", send("GET", "/api/v1/executions/search?state=NAPPING", TOKEN, Map.of(), null));
        answers.put("bad minLevel", send("GET", "/api/v1/logs/x?minLevel=LOUD", TOKEN, Map.of(), null));
        answers.put("unknown route", send("GET", "/api/v1/none", TOKEN, Map.of(), null));
        answers.put("unknown method", send("PATCH", flows, TOKEN, Map.of(), "x"));
        answers.put("outside the API", send("GET", "/favicon.ico", null, Map.of(), null));
        answers.put("webhook inputs that fail to render",
                send("POST", "/api/v1/executions/webhook/" + NAMESPACE + "/guarded/broken-key-0123456789", null,
                        Map.of(), "{}"));
        answers.put("unknown execution", send("GET", "/api/v1/executions/nope", TOKEN, Map.of(), null));

        answers.forEach((kind, answer) -> {
            assertThat(answer.status()).as(kind).isBetween(400, 499);
            assertThat(answer.json().path("message").asText()).as(kind).isNotBlank();
            assertNoInternals(kind, answer.body());
        });

        // requests Jetty refuses before any handler sees them
        for (String request : List.of("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n", "GET /api/v1/../../etc HTTP/1.1\r\nHost: x\r\n\r\n",
                "BREW\u0001 / HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")) {
            String raw = rawExchange(request);
            assertThat(raw).as(request).startsWith("HTTP/1.1 4");
            assertNoInternals(request, raw);
        }
    }

    @Test
    void shouldAnswerAnUnexpectedFailureWithAnErrorIdOnly() {
        // given: an API whose logs lookup fails with an internal exception
        var access = config(Map.of()).api();
        var app = HttpApi.create(null, null, id -> {
            throw new IllegalStateException("internal detail at io.millrace.Secret");
        }, null, () -> null, Duration.ofSeconds(1), Runnable::run,
                new GatewayMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), new Waiters(1)), access,
                new BearerTokens(access, (status, outcome) -> { }, new SimpleMeterRegistry()), null);
        app.start("127.0.0.1", 0);
        try {
            // when
            var answer = sendTo(app.port(), "GET", "/api/v1/logs/x", null);

            // then
            assertThat(answer.status()).isEqualTo(500);
            assertThat(answer.json().path("message").asText())
                    .matches("Internal error; the gateway's log has the details under error id [0-9a-z]+");
            assertNoInternals(answer.body());
            assertThat(answer.body()).doesNotContain("internal detail", "IllegalState");
        } finally {
            app.stop();
        }
    }

    @Test
    void shouldKeepAWebhooksKeyOutOfTheLog() {
        assertThat(HttpApi.loggedPath("/api/v1/executions/webhook/company.team/guarded/s3cr3t-key-0123456789"))
                .isEqualTo("/api/v1/executions/webhook/company.team/guarded/***");
        assertThat(HttpApi.loggedPath("/api/v1/executions/abc")).isEqualTo("/api/v1/executions/abc");
    }

    @Test
    void shouldListenOnLoopbackOnlyInStandaloneWithoutTokensAndEnforceTokensWhenGiven() throws Exception {
        // given
        try (Gateway open = Gateway.startStandalone(config(Map.of()));
                Gateway locked = Gateway.startStandalone(config(Map.of("auth-tokens", TOKEN)))) {
            // then
            assertThat(open.localOnly()).isTrue();
            assertThat(locked.localOnly()).isFalse();
            Optional<InetAddress> external = externalAddress();
            if (external.isPresent()) {
                assertThatThrownBy(() -> {
                    try (var socket = new Socket()) {
                        socket.connect(new InetSocketAddress(external.get(), open.port()), 2000);
                    }
                }).isInstanceOf(ConnectException.class);
                try (var socket = new Socket()) {
                    socket.connect(new InetSocketAddress(external.get(), locked.port()), 2000);
                }
            }
            assertThat(locked.awaitReady(Duration.ofSeconds(30))).isTrue();
            assertThat(sendTo(locked.port(), "GET", "/api/v1/executions/search", null).status()).isEqualTo(401);
            assertThat(sendTo(locked.port(), "GET", "/api/v1/executions/search", "Bearer " + TOKEN).status()).isEqualTo(200);
            assertThat(open.awaitReady(Duration.ofSeconds(30))).isTrue();
            assertThat(sendTo(open.port(), "GET", "/api/v1/executions/search", null).status()).isEqualTo(200);
        }
    }

    // --- helpers

    record Answer(int status, java.net.http.HttpHeaders headers, String body) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("Expected a JSON answer, but got: " + body, e);
            }
        }
    }

    private static BearerTokens tokens(List<String> admins) {
        return new BearerTokens(new ApiAccess(admins, null, 1024, 1024, 1, 0, Duration.ZERO, List.of(), List.of(), 1,
                0),
                (status, outcome) -> { }, new SimpleMeterRegistry());
    }

    private static MillraceConfig config(Map<String, String> extra) {
        var settings = new HashMap<>(Map.of(
                "bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(),
                "topic-prefix", "sec" + UUID.randomUUID().toString().substring(0, 8) + ".",
                "partitions", "1",
                "port", "0",
                "state-dir", stateDir.resolve(UUID.randomUUID().toString()).toString()));
        settings.putAll(extra);
        return ConfigLoader.load(Map.of(), settings, null);
    }

    private static Answer send(String method, String path, String token, Map<String, String> headers, String body) {
        return sendAsync(method, path, token, headers, body).join();
    }

    private static CompletableFuture<Answer> sendAsync(String method, String path, String token,
            Map<String, String> headers, String body) {
        return sendRawAsync(method, path, token == null ? null : "Bearer " + token, headers, body);
    }

    private static Answer sendRaw(String method, String path, String authorization, Map<String, String> headers,
            String body) {
        return sendRawAsync(method, path, authorization, headers, body).join();
    }

    private static CompletableFuture<Answer> sendRawAsync(String method, String path, String authorization,
            Map<String, String> headers, String body) {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (!headers.containsKey("Content-Type") && (method.equals("POST") || method.equals("PUT"))) {
            request.header("Content-Type", path.endsWith("/flows") ? "application/x-yaml" : "application/json");
        }
        headers.forEach(request::header);
        return HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(r -> new Answer(r.statusCode(), r.headers(), r.body()));
    }

    private static Answer sendTo(int port, String method, String path, String authorization) {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        var r = HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString()).join();
        return new Answer(r.statusCode(), r.headers(), r.body());
    }

    /** A body of unknown length, so sent chunked, without Content-Length. */
    private static Answer sendChunked(String path, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/x-yaml")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build();
        var r = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString()).join();
        return new Answer(r.statusCode(), r.headers(), r.body());
    }

    /** Writes bytes as they are, for requests no HTTP client would send, and reads the whole answer. */
    private static String rawExchange(String request) throws IOException {
        try (var socket = new Socket("127.0.0.1", gateway.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write((request.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static Optional<InetAddress> externalAddress() throws IOException {
        return NetworkInterface.networkInterfaces()
                .filter(n -> {
                    try {
                        return n.isUp() && !n.isLoopback();
                    } catch (IOException e) {
                        return false;
                    }
                })
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
                .findFirst();
    }

    private static void assertNoInternals(String body) {
        assertNoInternals("answer", body);
    }

    private static void assertNoInternals(String kind, String body) {
        for (String internal : INTERNALS) {
            assertThat(body).as(kind + " must not show " + internal).doesNotContain(internal);
        }
    }
}
