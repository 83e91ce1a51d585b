package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each role started alone, as its command starts it, serves its own /metrics and /health on its management port. */
class RoleManagementTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    @Test
    void shouldServeEachRolesMetricsAndHealthOnItsOwnManagementPort() throws Exception {
        // given: the four roles of one engine, each in its own management server, as in four processes
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("roles", stateDir, "port", "0", "auth-tokens", "role-management-test-token"), null);
        var roles = Map.of(
                new RoleCommand.ExecutorCommand(), "millrace_executor_timers_pending",
                new RoleCommand.WorkerCommand(), "millrace_worker_slots_free{group=\"default\"}",
                new RoleCommand.GatewayCommand(), "millrace_gateway_waiters",
                new RoleCommand.TriggersCommand(), "millrace_trigger_records_total{outcome=\"started\",type=\"io.kestra.plugin.core.trigger.Flow\"} 0.0");
        for (var role : roles.entrySet()) {
            // when
            try (RoleCommand.Running running = role.getKey().launch(config)) {
                String base = "http://localhost:" + running.management().port();

                // then
                assertThat(awaitHealthy(base + "/health")).as(role.getKey().getClass().getSimpleName()).isEqualTo(200);
                HttpResponse<String> metrics = get(base + "/metrics");
                assertThat(metrics.statusCode()).isEqualTo(200);
                assertThat(metrics.body()).contains(role.getValue()).contains("jvm_memory_used_bytes");
            }
        }
    }

    private static int awaitHealthy(String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        int status = get(url).statusCode();
        while (status != 200 && System.nanoTime() < deadline) {
            assertThat(status).isEqualTo(503);
            Thread.sleep(200);
            status = get(url).statusCode();
        }
        return status;
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
