package io.millrace.app;

import io.millrace.broker.BrokerRequestMeters;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigException;
import io.millrace.config.MillraceConfig;
import io.millrace.config.SecretSettings;
import io.millrace.core.flow.InputCipher;
import io.millrace.gateway.Gateway;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
            engine = Engine.start(engineConfig(base, broker.bootstrapServers(), data),
                    List.of(new BrokerRequestMeters()));
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
        System.out.println("Millrace metrics at " + engine.metricsUrl() + ", health at http://localhost:"
                + engine.managementPort() + "/health");
        System.out.println("Millrace is up. API: http://localhost:" + engine.port() + "/api/v1  (Kafka at "
                + broker.bootstrapServers() + "). Ctrl-C stops it.");
        System.out.println("Web UI: http://localhost:" + engine.port() + "/ui/");
        System.out.println(engine.apiLocalOnly()
                ? "The API is open (no auth-tokens configured) and listens on " + Gateway.LOOPBACK + " only: this machine alone can call it."
                : "The API requires a bearer token (Authorization: Bearer <token>) and listens on every interface.");
        RoleCommand.Lifecycle.runUntilStopped(engine, broker);
        return 0;
    }

    /**
     * The engine's settings on the embedded broker: its state under the data folder, flows allowed to reach the
     * broker (the only Kafka a laptop has) unless the operator said otherwise, and, unless {@code encryption-key} is
     * set, the key of SECRET inputs kept in the data folder ({@value #KEY_FILE}, made on first start), so that flows
     * with SECRET inputs run with no setting, as on a laptop they should.
     */
    static MillraceConfig engineConfig(MillraceConfig base, String bootstrapServers, Path data) throws IOException {
        MillraceConfig config = base.withBootstrapServers(bootstrapServers).withStateDir(data.resolve("state"))
                .inStandalone();
        if (config.secrets().inputCipher().isPresent()) {
            return config;
        }
        return config.withSecrets(new SecretSettings(Optional.of(InputCipher.of(keyIn(data))),
                config.secrets().webhookDropHeaders()));
    }

    static final String KEY_FILE = "encryption-key";

    /** The key in the data folder, made (32 random bytes, readable by its owner only) when there is none. */
    private static byte[] keyIn(Path data) throws IOException {
        Path file = data.resolve(KEY_FILE);
        if (!Files.exists(file)) {
            Files.createDirectories(data);
            byte[] key = new byte[InputCipher.KEY_BYTES];
            new SecureRandom().nextBytes(key);
            Path made = Files.createTempFile(data, KEY_FILE, ".new");
            Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rw-------"));
            Files.writeString(made, Base64.getEncoder().encodeToString(key));
            Files.move(made, file, StandardCopyOption.ATOMIC_MOVE);
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(Files.readString(file).strip());
        } catch (IllegalArgumentException e) {
            key = new byte[0];
        }
        if (key.length != InputCipher.KEY_BYTES) {
            throw new ConfigException("Expected " + file + " to hold the key of SECRET inputs, "
                    + InputCipher.KEY_BYTES + " bytes in base64, but it holds " + key.length);
        }
        return key;
    }
}
