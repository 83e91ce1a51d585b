package io.millrace.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * A role's management port: {@code GET /metrics} in Prometheus' text format and {@code GET /health}, 200
 * {@code {"status":"UP"}} once the role is ready and 503 before (and while it stops). One per process: standalone
 * serves all its roles' metrics from one registry.
 */
final class ManagementServer implements AutoCloseable {
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private volatile BooleanSupplier ready = () -> false;
    private volatile BooleanSupplier live = () -> true;

    private ManagementServer(PrometheusMeterRegistry registry, String host, int port) throws IOException {
        this.registry = registry;
        this.server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.setExecutor(threads);
        server.createContext("/metrics", this::metrics);
        server.createContext("/health", this::health);
        server.start();
    }

    /** A registry with the JVM's and the process' metrics, for the roles of this process to register theirs in. */
    static PrometheusMeterRegistry newRegistry() {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        return registry;
    }

    /**
     * Listens on {@code host} ({@code 0.0.0.0}: every interface) and {@code port} ({@code 0}: a free one);
     * {@code /health} answers 503 until {@link #ready} is given.
     */
    static ManagementServer start(PrometheusMeterRegistry registry, String host, int port) {
        try {
            var management = new ManagementServer(registry, host, port);
            management.gc.bindTo(registry);
            return management;
        } catch (IOException e) {
            throw new UncheckedIOException("Unable to serve metrics on management port " + port + ": " + e.getMessage(), e);
        }
    }

    /** From now on {@code /health} (and {@code /health/ready}) asks {@code check} whether the process can serve. */
    void ready(BooleanSupplier check) {
        this.ready = check;
    }

    /**
     * From now on {@code /health/live} asks {@code check} whether the process is alive: false only when it cannot
     * recover by itself (a restart would help), unlike {@code /health}, which is also false while it rebalances or
     * restores state.
     */
    void live(BooleanSupplier check) {
        this.live = check;
    }

    int port() {
        return server.getAddress().getPort();
    }

    String metricsUrl() {
        return "http://localhost:" + port() + "/metrics";
    }

    private void metrics(HttpExchange exchange) throws IOException {
        if (!allowed(exchange, "/metrics")) {
            return;
        }
        String text;
        try {
            text = registry.scrape();
        } catch (RuntimeException e) {
            answer(exchange, 500, "application/json", "{\"message\":\"Unable to collect the metrics\"}");
            return;
        }
        answer(exchange, 200, PROMETHEUS_TEXT, text);
    }

    private void health(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        BooleanSupplier check = path.equals("/health/live") ? live : ready;
        if (!allowed(exchange, path.equals("/health/live") || path.equals("/health/ready") ? path : "/health")) {
            return;
        }
        boolean up;
        try {
            up = check.getAsBoolean();
        } catch (RuntimeException e) {
            up = false;
        }
        answer(exchange, up ? 200 : 503, "application/json", up ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
    }

    /** Only GET (and HEAD) of the exact path; anything else gets 404 or 405. */
    private static boolean allowed(HttpExchange exchange, String path) throws IOException {
        if (!exchange.getRequestURI().getPath().equals(path)) {
            answer(exchange, 404, "application/json", "{\"message\":\"Not found\"}");
            return false;
        }
        String method = exchange.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            answer(exchange, 405, "application/json", "{\"message\":\"Only GET is allowed here\"}");
            return false;
        }
        return true;
    }

    private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            if (!head) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        ready = () -> false;
        server.stop(0);
        threads.shutdownNow();
        gc.close();
        registry.close();
    }
}
