package io.millrace.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.executor.Executor;
import io.millrace.gateway.Gateway;
import io.millrace.triggers.Triggers;
import io.millrace.worker.Worker;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * One role alone against an external Kafka cluster, with its management server ({@code /metrics}, {@code /health}
 * on {@code management-port}); runs until interrupted (Ctrl-C, SIGTERM).
 */
abstract class RoleCommand implements Callable<Integer> {
    @Mixin
    CommonOptions options;

    /** A started role, whether it can serve ({@code /health}) and whether it is alive ({@code /health/live}). */
    record Started(AutoCloseable role, BooleanSupplier ready, BooleanSupplier live) {
        Started(AutoCloseable role, BooleanSupplier ready) {
            this(role, ready, ready);
        }
    }

    abstract Started start(MillraceConfig config, MeterRegistry registry) throws Exception;

    /** The ports the role listens on, by the option or setting that chooses each. */
    Map<String, Integer> ports(MillraceConfig config) {
        return Map.of(Ports.MANAGEMENT, config.managementPort());
    }

    @Override
    public Integer call() throws Exception {
        Running running = launch(options.load(Map.of()));
        System.out.println("Millrace metrics at " + running.management().metricsUrl() + ", health at http://localhost:"
                + running.management().port() + "/health");
        Lifecycle.runUntilStopped(running);
        return 0;
    }

    /** The role and its management server, which answers /health from the role's readiness. */
    record Running(AutoCloseable role, ManagementServer management) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            management.ready(() -> false);
            try {
                role.close();
            } finally {
                management.close();
            }
        }
    }

    /** Starts the management server, then the role with its metrics in the server's registry. */
    Running launch(MillraceConfig config) throws Exception {
        Ports.requireFree(ports(config));
        PrometheusMeterRegistry registry = ManagementServer.newRegistry();
        ManagementServer management = ManagementServer.start(registry, Gateway.EVERY_INTERFACE, config.managementPort());
        Started started;
        try {
            started = start(config, registry);
        } catch (Exception | Error e) {
            management.close();
            throw e;
        }
        management.ready(started.ready());
        management.live(started.live());
        return new Running(started.role(), management);
    }

    @Command(name = "executor", mixinStandardHelpOptions = true, description = "Run the executor (Kafka Streams) against an external Kafka.")
    static final class ExecutorCommand extends RoleCommand {
        @Override
        Started start(MillraceConfig config, MeterRegistry registry) {
            System.out.println("Millrace executor starting against " + config.bootstrapServers());
            Executor executor = Executor.start(config, registry);
            return new Started(executor, executor::isRunning, executor::isAlive);
        }
    }

    @Command(name = "worker", mixinStandardHelpOptions = true, description = "Run a worker for one worker group against an external Kafka.")
    static final class WorkerCommand extends RoleCommand {
        @Override
        Started start(MillraceConfig config, MeterRegistry registry) {
            System.out.println("Millrace worker (group " + config.workerGroup() + ") starting against " + config.bootstrapServers());
            Worker worker = Worker.start(config, registry);
            return new Started(worker, worker::running, worker::alive);
        }
    }

    @Command(name = "gateway", mixinStandardHelpOptions = true, description = "Run the REST gateway against an external Kafka (needs access-file, auth-tokens or auth-tokens-file).")
    static final class GatewayCommand extends RoleCommand {
        @Override
        Map<String, Integer> ports(MillraceConfig config) {
            return Map.of("--port", config.port(), Ports.MANAGEMENT, config.managementPort());
        }

        @Override
        Started start(MillraceConfig config, MeterRegistry registry) {
            Gateway gateway = Gateway.start(config, registry);
            System.out.println("Millrace gateway: API at http://localhost:" + gateway.port() + "/api/v1 (bearer token required)");
            return new Started(gateway, gateway::ready, gateway::alive);
        }
    }

    @Command(name = "triggers", mixinStandardHelpOptions = true, description = "Run the flows' triggers (Kafka) against an external Kafka.")
    static final class TriggersCommand extends RoleCommand {
        @Override
        Started start(MillraceConfig config, MeterRegistry registry) {
            System.out.println("Millrace triggers starting against " + config.bootstrapServers());
            Triggers triggers = Triggers.start(config, registry);
            return new Started(triggers, triggers::ready, triggers::running);
        }
    }

    /** Blocks until the JVM is asked to stop, then closes what was started. */
    static final class Lifecycle {
        private Lifecycle() {
        }

        static void runUntilStopped(AutoCloseable... parts) throws InterruptedException {
            var stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                for (AutoCloseable part : parts) {
                    try {
                        part.close();
                    } catch (Exception e) {
                        System.err.println("millrace: error while stopping: " + e);
                    }
                }
                stopped.countDown();
            }, "millrace-shutdown"));
            stopped.await();
        }
    }
}
