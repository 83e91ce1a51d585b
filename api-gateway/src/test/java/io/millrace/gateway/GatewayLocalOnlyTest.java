package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.serdes.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open API as standalone runs it without tokens (127.0.0.1 only): web pages the developer visits may neither
 * write through it nor read its answers, unless cors-allowed-origins names their origin; writes declare JSON or YAML.
 */
class GatewayLocalOnlyTest {
    private static final String UI = "https://ui.example.com";
    private static final String FLOW =
            "id: local\nnamespace: company.team\ntasks:\n  - {id: say, type: log, message: hi}\n";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path stateDir;

    private static Gateway gateway;

    @BeforeAll
    static void startGateway() throws InterruptedException {
        var settings = Map.of("bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(),
                "topic-prefix", "local" + UUID.randomUUID().toString().substring(0, 8) + ".", "partitions", "1",
                "port", "0", "state-dir", stateDir.toString(), "cors-allowed-origins", UI,
                "api-allowed-hosts", "millrace.test");
        gateway = Gateway.startStandalone(ConfigLoader.load(Map.of(), settings, null));
        assertThat(gateway.localOnly()).isTrue();
        assertThat(gateway.awaitReady(Duration.ofSeconds(30))).as("gateway ready").isTrue();
    }

    @AfterAll
    static void stopGateway() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void shouldAnswerOnlyAHostNamingThisMachineOrAnAllowedOne() throws IOException {
        for (String host : new String[] {"localhost", "localhost:" + gateway.port(), "127.0.0.1:1", "[::1]:8080",
                "LOCALHOST", "millrace.test:80"}) {
            assertThat(raw("GET /api/v1/executions/search HTTP/1.1\r\nHost: " + host + "\r\n\r\n"))
                    .as(host).startsWith("HTTP/1.1 200");
        }
        for (String host : new String[] {"attacker.example", "attacker.example:" + gateway.port(), "127.0.0.1.nip.io",
                "localhost.attacker.example", "0.0.0.0"}) {
            // when: a page of attacker.example, its name pointed at 127.0.0.1 (DNS rebinding), reads or writes
            String read = raw("GET /api/v1/executions/search HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
            String write = raw("POST /api/v1/flows HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/x-yaml"
                    + "\r\nContent-Length: " + FLOW.length() + "\r\n\r\n" + FLOW);

            // then
            for (String answer : new String[] {read, write}) {
                assertThat(answer).as(host).startsWith("HTTP/1.1 403")
                        .contains("Expected a Host header naming this machine").doesNotContain("Exception");
            }
        }
    }

    @Test
    void shouldRefuseAPageOfAnotherSiteButServeThisMachinesPagesAndTheAllowedOrigin() {
        for (String origin : new String[] {"https://attacker.example", "null", "http://localhost.attacker.example",
                "http://127.0.0.1@attacker.example", "https://ui.example.com.attacker.example"}) {
            // when: a cross-site write and read
            var write = send("POST", "/api/v1/flows", Map.of("Origin", origin, "Content-Type", "application/x-yaml"),
                    FLOW);
            var read = send("GET", "/api/v1/executions/search", Map.of("Origin", origin), null);

            // then
            for (var answer : new HttpResponse[] {write, read}) {
                assertThat(answer.statusCode()).as(origin).isEqualTo(403);
                assertThat(json(answer).path("message").asText()).as(origin)
                        .contains("web pages of other sites may not call the open API");
                assertThat(answer.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
            }
        }
        for (String origin : new String[] {"http://localhost:3000", "http://127.0.0.1:" + gateway.port(),
                "http://[::1]:8080", UI}) {
            assertThat(send("GET", "/api/v1/executions/search", Map.of("Origin", origin), null).statusCode())
                    .as(origin).isEqualTo(200);
        }
    }

    @Test
    void shouldAnswerThePreflightAndAllowTheConfiguredOriginOnly() {
        // when: a page of the configured origin asks, then reads; a page of another asks
        var preflight = send("OPTIONS", "/api/v1/flows", Map.of("Origin", UI, "Access-Control-Request-Method", "POST",
                "Access-Control-Request-Headers", "content-type"), null);
        var read = send("GET", "/api/v1/executions/search", Map.of("Origin", UI), null);
        var foreign = send("OPTIONS", "/api/v1/flows", Map.of("Origin", "https://attacker.example",
                "Access-Control-Request-Method", "POST"), null);
        var local = send("GET", "/api/v1/executions/search", Map.of("Origin", "http://localhost:3000"), null);

        // then
        assertThat(preflight.statusCode()).isEqualTo(204);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).contains(UI);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers").orElse(""))
                .contains("Content-Type", "Authorization");
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods").orElse("")).contains("POST");
        assertThat(read.headers().firstValue("Access-Control-Allow-Origin")).contains(UI);
        assertThat(foreign.statusCode()).isEqualTo(403);
        assertThat(foreign.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(local.headers().firstValue("Access-Control-Allow-Origin")).as("not a CORS origin").isEmpty();
    }

    @Test
    void shouldRefuseAWriteWithoutAJsonOrYamlContentType() {
        var refused = new LinkedHashMap<String, HttpResponse<String>>();
        refused.put("none", send("POST", "/api/v1/flows", Map.of(), FLOW));
        refused.put("text/plain", send("POST", "/api/v1/flows", Map.of("Content-Type", "text/plain"), FLOW));
        refused.put("form", send("POST", "/api/v1/executions/company.team/local",
                Map.of("Content-Type", "application/x-www-form-urlencoded"), "inputs=1"));
        refused.put("multipart", send("POST", "/api/v1/executions/company.team/local",
                Map.of("Content-Type", "multipart/form-data; boundary=b"), "--b--"));
        refused.put("kill, no body", send("POST", "/api/v1/executions/some-id/kill", Map.of(), null));

        refused.forEach((kind, answer) -> {
            assertThat(answer.statusCode()).as(kind).isEqualTo(415);
            assertThat(json(answer).path("message").asText()).as(kind)
                    .startsWith("Expected a Content-Type of application/json, application/yaml, application/x-yaml");
        });
        // then: YAML and JSON, with parameters, in any case, are accepted; a resume takes Kestra's form too
        assertThat(send("POST", "/api/v1/flows", Map.of("Content-Type", "Application/X-YAML; charset=utf-8"), FLOW)
                .statusCode()).isEqualTo(200);
        assertThat(send("POST", "/api/v1/flows", Map.of("Content-Type", "text/yaml"), FLOW).statusCode())
                .isEqualTo(200);
        assertThat(send("POST", "/api/v1/executions/unknown-id/resume",
                Map.of("Content-Type", "application/x-www-form-urlencoded"), "approved=true").statusCode())
                .isEqualTo(404);
        assertThat(send("POST", "/api/v1/executions/company.team/nope", Map.of("Content-Type", "application/json"),
                null).statusCode()).isEqualTo(404);
    }

    @Test
    void shouldReadHostNamesWithoutTheirPorts() {
        assertThat(LocalOnly.hostName("LocalHost:8080")).isEqualTo("localhost");
        assertThat(LocalOnly.hostName("[::1]:8080")).isEqualTo("[::1]");
        assertThat(LocalOnly.hostName("[::1]")).isEqualTo("[::1]");
        assertThat(LocalOnly.hostName("127.0.0.1")).isEqualTo("127.0.0.1");
        assertThat(LocalOnly.hostName("localhost:http")).isNull();
        assertThat(LocalOnly.hostName("[::1]x")).isNull();
        assertThat(LocalOnly.hostName("")).isNull();
    }

    // --- helpers

    private static HttpResponse<String> send(String method, String path, Map<String, String> headers, String body) {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString()).join();
    }

    private static JsonNode json(HttpResponse<String> answer) {
        try {
            return Json.MAPPER.readTree(answer.body());
        } catch (IOException e) {
            throw new AssertionError("Expected a JSON answer, but got: " + answer.body(), e);
        }
    }

    /** Writes the request as it is (a Host no HTTP client lets us set) and reads the whole answer. */
    private static String raw(String request) throws IOException {
        try (var socket = new Socket("127.0.0.1", gateway.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            String closing = request.replaceFirst("\r\n\r\n", "\r\nConnection: close\r\n\r\n");
            out.write(closing.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
