package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine under a little load (executions that succeed, fail and retry, through the worker, over REST with and
 * without {@code ?wait}), scraped on its management port: the health answer, the metrics every role exports, and
 * every Grafana dashboard's queries evaluated by a real Prometheus against that scrape.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the dashboard check adds load, so the exact counts come first
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MetricsEndToEndTest {
    static final String OK_FLOW = """
            id: metrics-ok
            namespace: metrics.test
            tasks:
              - id: transform
                type: io.kestra.plugin.transform.jsonata.TransformValue
                from: '{"n": 2}'
                expression: n * 21
              - id: done
                type: io.kestra.plugin.core.log.Log
                message: "{{ outputs.transform.value }}"
            """;
    static final String FAILING_FLOW = """
            id: metrics-failing
            namespace: metrics.test
            tasks:
              - id: flaky
                type: io.kestra.plugin.core.execution.Fail
                condition: "{{ taskrun.attemptsCount == 0 }}"
                errorMessage: busy, once
                retry: {type: constant, interval: PT0.2S, maxAttempt: 2}
              - id: broken
                type: io.kestra.plugin.core.execution.Fail
                errorMessage: always broken
            """;

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    @TempDir
    static Path stateDir;
    private Engine engine;
    private String api;
    private String management;

    @BeforeAll
    void startAnEngineUnderLoad() throws Exception {
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("metrics", stateDir, "port", "0"), null);
        engine = Engine.start(config);
        api = "http://localhost:" + engine.port() + "/api/v1";
        management = "http://localhost:" + engine.managementPort();
        assertThat(send("POST", api + "/flows", OK_FLOW).statusCode()).isEqualTo(200);
        assertThat(send("POST", api + "/flows", FAILING_FLOW).statusCode()).isEqualTo(200);
        List<String> started = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", api + "/executions/metrics.test/metrics-ok?wait=true", "{}").body())
                    .contains("SUCCESS")
                    .containsPattern("\"breakdown\":\\{[^}]*\"running\":\"PT[^}]*\"endToRead\":\"PT");
            assertThat(send("POST", api + "/executions/metrics.test/metrics-failing?wait=true", "{}").body())
                    .contains("FAILED");
            HttpResponse<String> unwaited = send("POST", api + "/executions/metrics.test/metrics-ok", "{}");
            assertThat(unwaited.statusCode()).isEqualTo(200);
            started.add(executionId(unwaited.body()));
        }
        for (String id : started) {
            awaitSuccess(id);
        }
        assertThat(send("GET", api + "/executions/no-such-execution", null).statusCode()).isEqualTo(404);
        assertThat(send("GET", api + "/no-such-route/42", null).statusCode()).isEqualTo(404);
    }

    /** The executions started without {@code ?wait} must have ended before the counts below are read. */
    void awaitSuccess(String id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String body = send("GET", api + "/executions/" + id, null).body();
        while (!body.contains("\"current\":\"SUCCESS\"") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            body = send("GET", api + "/executions/" + id, null).body();
        }
        assertThat(body).contains("\"current\":\"SUCCESS\"");
    }

    static String executionId(String execution) {
        Matcher id = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(execution);
        assertThat(id.find()).as(execution).isTrue();
        return id.group(1);
    }

    @AfterAll
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    @Order(0)
    void shouldAnswerHealthOnTheManagementPort() throws Exception {
        HttpResponse<String> health = send("GET", management + "/health", null);

        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).isEqualTo("{\"status\":\"UP\"}");
        assertThat(send("POST", management + "/metrics", "").statusCode()).isEqualTo(405);
        assertThat(send("GET", management + "/nothing", null).statusCode()).isEqualTo(404);
    }

    @Test
    @Order(1)
    void shouldExportTheMetricsOfEveryRoleOfTheEngine() throws Exception {
        String scrape = scrapeOnceKafkaMetricsAreBound();

        assertThat(scrape)
                // executor
                .contains("millrace_executions_started_total{flow=\"metrics-ok\",namespace=\"metrics.test\"} 10.0")
                .contains("millrace_executions_ended_total{flow=\"metrics-failing\",namespace=\"metrics.test\",state=\"FAILED\"} 5.0")
                .contains("millrace_execution_duration_seconds_bucket{flow=\"metrics-ok\",namespace=\"metrics.test\",state=\"SUCCESS\",le=\"+Inf\"} 10")
                .contains("millrace_task_runs_scheduled_total{type=\"io.kestra.plugin.core.execution.Fail\"} 10.0")
                .contains("millrace_task_runs_ended_total{state=\"FAILED\",type=\"io.kestra.plugin.core.execution.Fail\"} 5.0")
                .contains("millrace_task_retries_total{type=\"io.kestra.plugin.core.execution.Fail\"} 5.0")
                .contains("millrace_executor_rejections_total{kind=\"stale\"}")
                .contains("millrace_executor_dead_letters_total{reason=\"invalid_command\",topic=\"commands\"}")
                .contains("millrace_executor_timer_lateness_seconds_bucket{kind=\"retry\"")
                .contains("millrace_executor_store_entries{store=\"executions\"}")
                .contains("millrace_executor_timers_pending ")
                // where the time went: every end on the executor, every waited answer on the gateway
                .contains("millrace_execution_hops_seconds_count{hop=\"running\"} 15")
                .contains("millrace_execution_hops_seconds_count{hop=\"queued\"} 15")
                .contains("millrace_execution_hops_seconds_count{hop=\"outside_workers\"} 15")
                .contains("millrace_execution_hops_seconds_count{hop=\"end_to_read\"} 10")
                // worker
                .contains("millrace_worker_slots_free{group=\"default\"}")
                .contains("millrace_worker_task_queued_seconds_count{group=\"default\",type=\"io.kestra.plugin.core.execution.Fail\"}")
                .contains("millrace_worker_task_duration_seconds_count{group=\"default\",state=\"FAILED\",type=\"io.kestra.plugin.core.execution.Fail\"} 10")
                // gateway: by route, never by the concrete path
                .contains("route=\"/api/v1/executions/{namespace}/{flowId}\"")
                .contains("route=\"/api/v1/executions/{id}\",status=\"404\"")
                .contains("millrace_gateway_requests_seconds_count{method=\"GET\",route=\"unmatched\",status=\"404\"} 1")
                .doesNotContain("no-such-execution")
                .doesNotContain("no-such-route")
                .contains("millrace_gateway_waiters ")
                // Kafka Streams, clients, JVM and process
                .contains("kafka_stream_thread_commit_latency_avg")
                .contains("kafka_consumer_fetch_manager_records_lag_max")
                .contains("kafka_producer_record_send_total")
                .contains("jvm_memory_used_bytes")
                .contains("process_cpu_usage");
    }

    /**
     * The dashboard check: a real Prometheus scrapes this engine while it keeps working, then evaluates every query
     * of every dashboard in helm/millrace/dashboards; each must parse, name only metrics the engine exports and answer
     * with data (see the check script).
     */
    @Test
    @Order(2)
    void shouldShowDataInEveryPanelOfEveryDashboard() throws Exception {
        // given: Kafka's per-thread and per-task metrics bound, and load going on while Prometheus scrapes
        scrapeOnceKafkaMetricsAreBound();
        Path check = Path.of("..", "helm", "millrace", "dashboards", "check").toAbsolutePath().normalize();
        Path log = Files.createTempFile("millrace-dashboards-check", ".log");
        var loadFailure = new AtomicReference<Exception>();
        var load = Thread.ofVirtual().start(() -> {
            try {
                for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                    send("POST", api + "/executions/metrics.test/metrics-ok" + (i % 5 == 0 ? "?wait=true" : ""), "{}");
                    if (i % 4 == 0) {
                        send("POST", api + "/executions/metrics.test/metrics-failing", "{}");
                    }
                    Thread.sleep(200);
                }
            } catch (InterruptedException e) {
                // the check is over
            } catch (Exception e) {
                loadFailure.set(e);
            }
        });

        // when
        int exit;
        try {
            Process process = new ProcessBuilder(check.toString(), "localhost:" + engine.managementPort(), "20")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroy(); // the check stops its Prometheus on SIGTERM
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
                process.waitFor();
            }
            exit = process.exitValue();
        } finally {
            load.interrupt();
            load.join(Duration.ofSeconds(70));
        }

        // then
        String output = Files.readString(log);
        Files.delete(log);
        System.out.println(output);
        assertThat(loadFailure.get()).as("the load during the check").isNull();
        assertThat(output).contains("all parse, name scraped metrics and answer with data");
        assertThat(exit).as(output).isZero();
    }

    /** Kafka adds per-thread and per-task metrics once they exist; the binders pick them up within their refresh. */
    String scrapeOnceKafkaMetricsAreBound() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String scrape = scrape();
        while (!(scrape.contains("kafka_stream_thread_commit_latency_avg")
                && scrape.contains("kafka_consumer_fetch_manager_records_lag_max")) && System.nanoTime() < deadline) {
            Thread.sleep(1000);
            scrape = scrape();
        }
        return scrape;
    }

    String scrape() throws Exception {
        HttpResponse<String> metrics = send("GET", management + "/metrics", null);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        return metrics.body();
    }

    static HttpResponse<String> send(String method, String url, String body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body);
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).method(method, publisher)
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", url.endsWith("/flows") ? "application/x-yaml" : "application/json").build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
