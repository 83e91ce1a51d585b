package io.millrace.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.executor.Executor;
import io.millrace.gateway.Gateway;
import io.millrace.triggers.Triggers;
import io.millrace.worker.Worker;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** One role alone against an external Kafka cluster; runs until interrupted (Ctrl-C, SIGTERM). */
abstract class RoleCommand implements Callable<Integer> {
    @Mixin
    CommonOptions options;

    abstract AutoCloseable start(MillraceConfig config) throws Exception;

    @Override
    public Integer call() throws Exception {
        MillraceConfig config = options.load(Map.of());
        AutoCloseable role = start(config);
        Lifecycle.runUntilStopped(role);
        return 0;
    }

    @Command(name = "executor", description = "Run the executor (Kafka Streams) against an external Kafka.")
    static final class ExecutorCommand extends RoleCommand {
        @Override
        AutoCloseable start(MillraceConfig config) {
            System.out.println("Millrace executor starting against " + config.bootstrapServers());
            return Executor.start(config, new SimpleMeterRegistry());
        }
    }

    @Command(name = "worker", description = "Run a worker for one worker group against an external Kafka.")
    static final class WorkerCommand extends RoleCommand {
        @Override
        AutoCloseable start(MillraceConfig config) {
            System.out.println("Millrace worker (group " + config.workerGroup() + ") starting against " + config.bootstrapServers());
            return Worker.start(config);
        }
    }

    @Command(name = "gateway", description = "Run the REST gateway against an external Kafka (needs auth-tokens or auth-tokens-file).")
    static final class GatewayCommand extends RoleCommand {
        @Override
        AutoCloseable start(MillraceConfig config) {
            Gateway gateway = Gateway.start(config);
            System.out.println("Millrace gateway: API at http://localhost:" + gateway.port() + "/api/v1 (bearer token required)");
            return gateway;
        }
    }

    @Command(name = "triggers", description = "Run the flows' triggers (Kafka) against an external Kafka.")
    static final class TriggersCommand extends RoleCommand {
        @Override
        AutoCloseable start(MillraceConfig config) {
            System.out.println("Millrace triggers starting against " + config.bootstrapServers());
            return Triggers.start(config, new SimpleMeterRegistry());
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
