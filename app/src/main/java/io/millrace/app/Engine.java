package io.millrace.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.executor.Executor;
import io.millrace.gateway.Gateway;
import io.millrace.worker.Worker;
import java.time.Duration;
import java.util.ArrayDeque;

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

    /** Starts the roles in order; if one fails, those already started are closed before the failure is rethrown. */
    public static Engine start(MillraceConfig config) throws InterruptedException {
        var started = new ArrayDeque<AutoCloseable>();
        try {
            Executor executor = Executor.start(config, new SimpleMeterRegistry());
            started.push(executor);
            if (!executor.awaitRunning(Duration.ofSeconds(120))) {
                throw new IllegalStateException("Expected the executor to be running within 120 s, but it is not");
            }
            Worker worker = Worker.start(config);
            started.push(worker);
            Gateway gateway = Gateway.start(config);
            started.push(gateway);
            if (!gateway.awaitReady(Duration.ofSeconds(120))) {
                throw new IllegalStateException("Expected the gateway to be ready within 120 s, but it is not");
            }
            return new Engine(executor, worker, gateway);
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

    @Override
    public void close() {
        gateway.close();
        worker.close();
        executor.close();
    }
}
