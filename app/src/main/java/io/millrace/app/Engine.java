package io.millrace.app;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.executor.Executor;
import io.millrace.gateway.Gateway;
import io.millrace.triggers.Triggers;
import io.millrace.worker.Worker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Executor, worker, gateway and triggers in one JVM against one Kafka: the standalone engine less its broker. One
 * management server ({@code management-port}) serves the metrics of all four and their health.
 */
public final class Engine implements AutoCloseable {
    private final ManagementServer management;
    private final Executor executor;
    private final Worker worker;
    private final Gateway gateway;
    private final Triggers triggers;

    private Engine(ManagementServer management, Executor executor, Worker worker, Gateway gateway, Triggers triggers) {
        this.management = management;
        this.executor = executor;
        this.worker = worker;
        this.gateway = gateway;
        this.triggers = triggers;
    }

    /**
     * Starts the roles in order and answers once each is ready (the triggers: listening for ended executions); if one
     * fails, those already started are closed before the failure is rethrown.
     */
    public static Engine start(MillraceConfig config) throws InterruptedException {
        return start(config, List.of());
    }

    /** The same, with {@code meters} (the embedded broker's, in standalone) in the management server's metrics too. */
    public static Engine start(MillraceConfig config, List<MeterBinder> meters) throws InterruptedException {
        var started = new ArrayDeque<AutoCloseable>();
        try {
            PrometheusMeterRegistry registry = ManagementServer.newRegistry();
            meters.forEach(binder -> binder.bindTo(registry));
            // an open API listens on this machine alone: so do its metrics
            ManagementServer management = ManagementServer.start(registry,
                    Gateway.standaloneHost(config), config.managementPort());
            started.push(management);
            Executor executor = Executor.start(config, registry);
            started.push(executor);
            if (!executor.awaitRunning(Duration.ofSeconds(120))) {
                throw new IllegalStateException("Expected the executor to be running within 120 s, but it is not");
            }
            Worker worker = Worker.startStandalone(config, registry);
            started.push(worker);
            Gateway gateway = Gateway.startStandalone(config, registry);
            started.push(gateway);
            if (!gateway.awaitReady(Duration.ofSeconds(120))) {
                throw new IllegalStateException("Expected the gateway to be ready within 120 s, but it is not");
            }
            Triggers triggers = Triggers.startStandalone(config, registry);
            started.push(triggers);
            if (!triggers.awaitReady(Duration.ofSeconds(120))) {
                throw new IllegalStateException("Expected the triggers to be ready within 120 s, but they are not");
            }
            management.ready(() -> executor.isRunning() && worker.running() && gateway.ready() && triggers.ready());
            management.live(() -> executor.isAlive() && worker.alive() && gateway.alive() && triggers.running());
            return new Engine(management, executor, worker, gateway, triggers);
        } catch (RuntimeException | InterruptedException e) {
            for (AutoCloseable role : started) {
                try {
                    role.close();
                } catch (Exception closing) {
                    e.addSuppressed(closing);
                }
            }
            throw e;
        }
    }

    public int port() {
        return gateway.port();
    }

    /** The management port: {@code /metrics} and {@code /health}. */
    public int managementPort() {
        return management.port();
    }

    public String metricsUrl() {
        return management.metricsUrl();
    }

    /** Whether the API is open to this machine only (no bearer token configured). */
    public boolean apiLocalOnly() {
        return gateway.localOnly();
    }

    @Override
    public void close() {
        management.ready(() -> false);
        triggers.close();
        gateway.close();
        worker.close();
        executor.close();
        management.close();
    }
}
