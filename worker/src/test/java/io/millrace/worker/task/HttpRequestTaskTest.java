package io.millrace.worker.task;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.millrace.core.execution.State;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.TaskTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/** Against a real server on 127.0.0.1 whose /echo answers with what it received. */
class HttpRequestTaskTest {

    private static final Map<String, Object> VARS = Variables.builder().inputs(Map.of("name", "world")).build();

    private static HttpServer server;
    private static ExecutorService handlers;
    private static String base;

    @BeforeAll
    static void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        handlers = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(handlers);
        server.createContext("/echo", HttpRequestTaskTest::echo);
        server.createContext("/missing", exchange -> reply(exchange, 404, "no such thing"));
        server.createContext("/empty", exchange -> {
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.createContext("/slow", exchange -> {
            try {
                Thread.sleep(Duration.ofSeconds(30));
                reply(exchange, 200, "late");
            } catch (InterruptedException e) {
                exchange.close(); // the server is stopping
            }
        });
        server.createContext("/large", exchange -> {
            exchange.sendResponseHeaders(200, 0); // chunked: the client learns the size only by reading
            try (OutputStream out = exchange.getResponseBody()) {
                byte[] chunk = new byte[64 * 1024];
                Arrays.fill(chunk, (byte) 'x');
                for (int sent = 0; sent <= HttpOptions.MAX_CONTENT_LENGTH; sent += chunk.length) {
                    out.write(chunk);
                }
            } catch (IOException e) {
                // the client gave up reading, as it should
            }
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterAll
    static void stopServer() {
        server.stop(0);
        handlers.shutdownNow();
    }

    /** Answers with one line per thing the tests look at, and a response header with two values. */
    private static void echo(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        var headers = exchange.getRequestHeaders();
        String text = "method=" + exchange.getRequestMethod()
                + "\ncontent-type=" + String.join(",", headers.getOrDefault("Content-Type", List.of()))
                + "\nx-test=" + String.join(",", headers.getOrDefault("X-Test", List.of()))
                + "\nauthorization=" + String.join(",", headers.getOrDefault("Authorization", List.of()))
                + "\nhost=" + String.join(",", headers.getOrDefault("Host", List.of()))
                + "\nbody=" + body;
        exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=UTF-8");
        exchange.getResponseHeaders().add("X-Reply", "one");
        exchange.getResponseHeaders().add("X-Reply", "two");
        reply(exchange, 200, text);
    }

    private static void reply(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static TaskOutcome request(Map<String, Object> props) throws InterruptedException {
        return Invocations.execute(Invocations.of("h", TaskTypes.HTTP_REQUEST, props, VARS));
    }

    private static String body(TaskOutcome outcome) {
        assertThat(outcome.error()).isNull();
        return (String) outcome.outputs().get("body");
    }

    @Test
    void shouldGetWithRenderedHeadersAndOutputCodeHeadersBodyAndUri() throws Exception {
        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("h", "http-request",
                Map.of("uri", base + "/echo", "headers", Map.of("X-Test", "hello {{ inputs.name }}")), VARS));

        // then
        assertThat(outcome.state()).isEqualTo(State.SUCCESS);
        assertThat(outcome.outputs()).containsEntry("uri", base + "/echo").containsEntry("code", 200);
        assertThat(body(outcome)).startsWith("method=GET\n").contains("\nx-test=hello world\n");
        @SuppressWarnings("unchecked")
        Map<String, List<String>> headers = (Map<String, List<String>>) outcome.outputs().get("headers");
        assertThat(headers).containsEntry("x-reply", List.of("one", "two"))
                .containsEntry("content-type", List.of("text/plain; charset=UTF-8"));
    }

    @Test
    void shouldPostFormDataUrlEncoded() throws Exception {
        // given
        Map<String, Object> props = Map.of("uri", base + "/echo", "method", "POST",
                "formData", Map.of("hello", "{{ inputs.name }} & co"));

        // when
        TaskOutcome outcome = request(props);

        // then
        assertThat(body(outcome)).startsWith("method=POST\n")
                .contains("\ncontent-type=application/x-www-form-urlencoded\n")
                .endsWith("\nbody=hello=world+%26+co");
    }

    @Test
    void shouldPostMultipartFormDataWhenTheContentTypeSaysSo() throws Exception {
        // given
        Map<String, Object> props = Map.of("uri", base + "/echo", "method", "post", "contentType", "multipart/form-data",
                "formData", Map.of("greeting", "hello {{ inputs.name }}"));

        // when
        String body = body(request(props));

        // then
        assertThat(body).containsPattern("\ncontent-type=multipart/form-data; boundary=millrace-[0-9a-f-]+\n")
                .contains("Content-Disposition: form-data; name=\"greeting\"\r\n")
                .contains("\r\n\r\nhello world\r\n--millrace-");
    }

    @Test
    void shouldPostTheRenderedBodyWithItsContentType() throws Exception {
        // given
        Map<String, Object> props = Map.of("uri", base + "/echo", "method", "PUT", "contentType", "application/json",
                "body", "{\"name\": \"{{ inputs.name }}\"}");

        // when
        String body = body(request(props));

        // then
        assertThat(body).startsWith("method=PUT\n").contains("\ncontent-type=application/json\n")
                .endsWith("\nbody={\"name\": \"world\"}");
    }

    @Test
    void shouldSendBasicAuthenticationFromTheOptions() throws Exception {
        // given
        Map<String, Object> props = Map.of("uri", base + "/echo",
                "options", Map.of("basicAuthUser", "user", "basicAuthPassword", "pass", "connectTimeout", "PT5S"));

        // when
        String body = body(request(props));

        // then: base64 of "user:pass"
        assertThat(body).contains("\nauthorization=Basic dXNlcjpwYXNz\n");
    }

    @Test
    void shouldFailOnAnErrorStatusNamingIt() throws Exception {
        // when
        TaskOutcome outcome = request(Map.of("uri", base + "/missing"));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.failed("Task 'h': GET " + base + "/missing answered HTTP 404;"
                + " set allowFailed: true to accept such a status"));
    }

    @Test
    void shouldOutputAnErrorStatusWhenFailuresAreAllowed() throws Exception {
        // when
        TaskOutcome allowed = request(Map.of("uri", base + "/missing", "allowFailed", true));
        TaskOutcome allowedInOptions = request(Map.of("uri", base + "/missing", "options", Map.of("allowFailed", "true")));

        // then
        for (TaskOutcome outcome : List.of(allowed, allowedInOptions)) {
            assertThat(outcome.state()).isEqualTo(State.SUCCESS);
            assertThat(outcome.outputs()).containsEntry("code", 404).containsEntry("body", "no such thing");
        }
    }

    @Test
    void shouldOutputNoBodyWhenTheResponseHasNone() throws Exception {
        // when
        TaskOutcome outcome = request(Map.of("uri", base + "/empty", "method", "DELETE"));

        // then
        assertThat(outcome.state()).isEqualTo(State.SUCCESS);
        assertThat(outcome.outputs()).containsEntry("code", 204).doesNotContainKey("body");
    }

    @Test
    void shouldFailWhenTheResponseDoesNotComeWithinTheReadTimeout() throws Exception {
        // given
        long start = System.nanoTime();

        // when
        TaskOutcome outcome = request(Map.of("uri", base + "/slow", "options", Map.of("readTimeout", "PT0.3S")));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.failed("Task 'h': no complete response from GET " + base
                + "/slow within options.readTimeout PT0.3S"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void shouldStopWaitingForTheResponseWhenInterrupted() throws Exception {
        // given
        TaskInvocation invocation = Invocations.of("h", TaskTypes.HTTP_REQUEST, Map.of("uri", base + "/slow"), VARS);

        // when / then: it stops at once and says it was interrupted
        assertThat(Invocations.interruptAfter(invocation, Duration.ofMillis(200))).isInstanceOf(InterruptedException.class);
    }

    @Test
    void shouldFailWhenTheBodyExceedsTheLimit() throws Exception {
        // when
        TaskOutcome tooLarge = request(Map.of("uri", base + "/large"));
        TaskOutcome overOwnLimit = request(Map.of("uri", base + "/echo", "options", Map.of("maxContentLength", 10)));
        TaskOutcome limitTooHigh = request(Map.of("uri", base + "/echo", "options", Map.of("maxContentLength", 20_000_000)));

        // then
        assertThat(tooLarge.error()).isEqualTo("Task 'h': the response body of GET " + base
                + "/large is larger than the limit of 10485760 bytes (10 MiB)");
        assertThat(overOwnLimit.error()).isEqualTo("Task 'h': the response body of GET " + base
                + "/echo is larger than the limit of 10 bytes");
        assertThat(limitTooHigh.error()).isEqualTo("Task 'h': property 'options.maxContentLength' must be between 1 and"
                + " 10485760 bytes (10 MiB), got 20000000");
    }

    @Test
    void shouldFailNamingTheProblemWithTheRequest() throws Exception {
        // given: a port nobody listens on
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }

        // when
        TaskOutcome refused = request(Map.of("uri", "http://127.0.0.1:" + closedPort + "/"));
        TaskOutcome notHttp = request(Map.of("uri", "ftp://example.com/file"));
        TaskOutcome badMethod = request(Map.of("uri", base + "/echo", "method", "FETCH"));
        TaskOutcome unknownOption = request(Map.of("uri", base + "/echo", "options", Map.of("proxyAddress", "proxy")));
        TaskOutcome restrictedHeader = request(Map.of("uri", base + "/echo", "headers", Map.of("Host", "other")));

        // then
        assertThat(refused.error()).startsWith("Task 'h': could not connect to http://127.0.0.1:" + closedPort + "/: ");
        assertThat(notHttp.error()).isEqualTo("Task 'h': property 'uri' must be an http or https URL with a host, got 'ftp://example.com/file'");
        assertThat(badMethod.error()).isEqualTo("Task 'h': property 'method' must be one of DELETE, GET, HEAD, OPTIONS, PATCH,"
                + " POST, PUT, TRACE, got 'FETCH'");
        assertThat(unknownOption.error()).startsWith("Task 'h': option 'proxyAddress' is not supported; options are [allowFailed,");
        assertThat(restrictedHeader.error()).startsWith("Task 'h': header 'Host' cannot be sent: ");
    }
}
