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
}
