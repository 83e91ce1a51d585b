package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ManagementServerTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void shouldAnswerLivenessApartFromReadinessSoARebalanceRestartsNothing() throws Exception {
        // given: a role that is alive but not ready (rebalancing, restoring state)
        var ready = new AtomicBoolean(false);
        var alive = new AtomicBoolean(true);
        try (var management = ManagementServer.start(ManagementServer.newRegistry(), "127.0.0.1", 0)) {
            management.ready(ready::get);
            management.live(alive::get);
            String base = "http://127.0.0.1:" + management.port();

            // then
            assertThat(status(base + "/health")).isEqualTo(503);
            assertThat(status(base + "/health/ready")).isEqualTo(503);
            assertThat(status(base + "/health/live")).isEqualTo(200);

            // when: ready, then failed
            ready.set(true);
            assertThat(status(base + "/health")).isEqualTo(200);
            alive.set(false);
            ready.set(false);

            // then
            assertThat(status(base + "/health/live")).isEqualTo(503);
            assertThat(status(base + "/health/other")).isEqualTo(404);
        }
    }

    private static int status(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
