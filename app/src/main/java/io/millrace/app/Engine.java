package io.millrace.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.executor.Executor;
import io.millrace.gateway.Gateway;
import io.millrace.worker.Worker;
import java.time.Duration;

/** Executor, worker and gateway in one JVM against one Kafka: the standalone engine less its broker. */
public final class Engine implements AutoCloseable {
    private final Executor executor;
    private final Worker worker;
    private final Gateway gateway;

    private Engine(Executor executor, Worker worker, Gateway gateway) {
        this.executor = executor;
        this.worker = worker;
        this.gateway = gateway;
    }

    public static Engine start(MillraceConfig config) throws InterruptedException {
        Executor executor = Executor.start(config, new SimpleMeterRegistry());
        if (!executor.awaitRunning(Duration.ofSeconds(120))) {
            executor.close();
            throw new IllegalStateException("Expected the executor to be running within 120 s, but it is not");
        }
        Worker worker = Worker.start(config);
        Gateway gateway = Gateway.start(config);
        if (!gateway.awaitReady(Duration.ofSeconds(120))) {
            new Engine(executor, worker, gateway).close();
            throw new IllegalStateException("Expected the gateway to be ready within 120 s, but it is not");
        }
        return new Engine(executor, worker, gateway);
    }

    public int port() {
        return gateway.port();
    }

    @Override
    public void close() {
        gateway.close();
        worker.close();
        executor.close();
    }
}
