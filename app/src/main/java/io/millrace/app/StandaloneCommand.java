package io.millrace.app;

import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.MillraceConfig;
import io.millrace.gateway.Gateway;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** A real Kafka broker, the executor, a worker and the gateway in one JVM, all data under one folder. */
@Command(name = "standalone", mixinStandardHelpOptions = true, description = "Run everything in one process with an embedded Kafka broker.")
final class StandaloneCommand implements Callable<Integer> {
    @Mixin
    CommonOptions options;

    @Option(names = "--data-dir", description = "Where the broker and state stores keep their data "
            + "(MILLRACE_DATA_DIR, default ./data)")
    Path dataDir;

    @Option(names = "--kafka-port", defaultValue = "${env:MILLRACE_KAFKA_PORT:-9092}",
            description = "Port of the embedded Kafka broker (MILLRACE_KAFKA_PORT, default ${DEFAULT-VALUE})")
    int kafkaPort;

    @Override
    public Integer call() throws Exception {
        MillraceConfig base = options.load(dataDir == null ? Map.of() : Map.of("data-dir", dataDir.toString()));
        Path data = base.dataDir().toAbsolutePath();
        Ports.requireFree(Map.of("--kafka-port", kafkaPort, "--port", base.port(), Ports.MANAGEMENT,
                base.managementPort()));
        System.out.println("Millrace standalone: starting Kafka (data in " + data + ")...");
        // the users' own topics (a trigger's, a producer's) appear on first use, as with Kafka's defaults
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(data.resolve("kafka"), kafkaPort, true);
        Engine engine;
        try {
            engine = Engine.start(engineConfig(base, broker.bootstrapServers(), data));
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
        System.out.println("Millrace metrics at " + engine.metricsUrl() + ", health at http://localhost:"
                + engine.managementPort() + "/health");
        System.out.println("Millrace is up. API: http://localhost:" + engine.port() + "/api/v1  (Kafka at "
                + broker.bootstrapServers() + "). Ctrl-C stops it.");
        System.out.println(engine.apiLocalOnly()
                ? "The API is open (no auth-tokens configured) and listens on " + Gateway.LOOPBACK + " only: this machine alone can call it."
                : "The API requires a bearer token (Authorization: Bearer <token>) and listens on every interface.");
        RoleCommand.Lifecycle.runUntilStopped(engine, broker);
        return 0;
    }

    /**
     * The engine's settings on the embedded broker: its state under the data folder, and flows allowed to reach the
     * broker (the only Kafka a laptop has) unless the operator said otherwise.
     */
    static MillraceConfig engineConfig(MillraceConfig base, String bootstrapServers, Path data) {
        return base.withBootstrapServers(bootstrapServers).withStateDir(data.resolve("state")).inStandalone();
    }
}
