package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RestStarterTest {
    @Test
    void shouldSendTheBearerTokenAGatewayRoleRequires() throws Exception {
        // given: an API that records the Authorization header of each start and answers an execution id
        var seen = new LinkedBlockingQueue<String>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/executions/", exchange -> {
            seen.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            byte[] body = "{\"id\":\"e1\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            URI api = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1");
            var tracker = new Tracker();
            var window = new LatencyWindow();

            // when
            new RestStarter(api, "s3cret", Workload.W1, "w1", tracker).start(0, System.nanoTime(), window);
            new RestStarter(api, null, Workload.W1, "w1", tracker).start(1, System.nanoTime(), window);

            // then: with the token, and without one none (the two may arrive in either order)
            assertThat(java.util.List.of(seen.poll(10, TimeUnit.SECONDS), seen.poll(10, TimeUnit.SECONDS)))
                    .containsExactlyInAnyOrder("Bearer s3cret", "null");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void shouldCountRefusalsAndErrorAnswersApart() throws Exception {
        // given: an API that answers each start by the n in its inputs: 200, 503 + Retry-After, 429 + Retry-After, 503
        // without Retry-After, and 500; and a closed connection
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        var answers = new LinkedBlockingQueue<Integer>(java.util.List.of(200, 503, 429, 5030, 500, 0));
        server.createContext("/api/v1/executions/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            int status = answers.remove();
            if (status == 0) {
                exchange.close(); // no answer at all
                return;
            }
            if (status == 503 || status == 429) {
                exchange.getResponseHeaders().add("Retry-After", "1");
            }
            byte[] body = (status == 200 ? "{\"id\":\"e1\"}" : "{\"message\":\"no\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status == 5030 ? 503 : status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            URI api = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1");
            var tracker = new Tracker();
            var window = new LatencyWindow();
            var starter = new RestStarter(api, null, Workload.W1, "w1", tracker);

            // when: one start after the other, each answered before the next
            for (int n = 0; n < 6; n++) {
                long before = window.refused() + window.unanswered() + window.expected();
                starter.start(n, System.nanoTime(), window);
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (window.refused() + window.unanswered() + window.expected() == before && System.nanoTime() < until) {
                    Thread.sleep(5);
                }
            }

            // then: two refused, one unanswered; the start and the two error answers are expected executions, the
            // error answers failures
            assertThat(window.refused()).isEqualTo(2);
            assertThat(window.unanswered()).isEqualTo(1);
            assertThat(window.expected()).isEqualTo(3);
            assertThat(window.failuresAndMissing()).isEqualTo(3);
            assertThat(window.answerPercentileMs(100)).as("the slowest of the five answers").isPositive();
        } finally {
            server.stop(0);
        }
    }
}
