package io.millrace.broker;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller roles) running inside this JVM.
 *
 * <p>All state lives in {@link #dataDir()}: the Kafka log directory (which also holds the KRaft metadata log) and a
 * small properties file with the cluster id and the controller port, so that starting again on the same directory,
 * after {@link #close()} or after the JVM was killed, keeps every topic and record.
 *
 * <p>Settings are those of a single node: every internal topic has one replica and one in-sync replica, so consumer
 * groups and transactions (exactly_once_v2) work. Topics are not auto-created unless asked ({@link #start(Path, int,
 * boolean)}: the engine creates its own, with their partitions). Listeners bind 127.0.0.1 only.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);

    private static final int NODE_ID = 1;
    private static final String HOST = "127.0.0.1";
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final String STATE_FILE = "embedded-broker.properties";
    private static final String LOCK_FILE = "embedded-broker.lock";
    private static final String LOG_DIR = "kafka-logs";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private static EmbeddedKafkaBroker shared;

    private final KafkaRaftServer server;
    private final FileChannel lock;
    private final Path dataDir;
    private final int port;
    private final SecuredListener secured;
    private volatile boolean closed;

    private EmbeddedKafkaBroker(KafkaRaftServer server, FileChannel lock, Path dataDir, int port,
            SecuredListener secured) {
        this.server = server;
        this.lock = lock;
        this.dataDir = dataDir;
        this.port = port;
        this.secured = secured;
    }

    /** A client listener other than plaintext: what the broker requires of every client, and what a client sets. */
    public sealed interface SecuredListener permits SaslPlain, Tls {
        /** The settings a client of this listener needs ({@code security.protocol} and its companions). */
        Map<String, String> clientSettings();

        Map<String, String> brokerSettings(int brokerPort, int controllerPort);
    }

    /**
     * SASL PLAIN over plaintext: one user and its password, which the broker also uses for itself. For tests of the
     * engine's Kafka security settings; a production broker would use TLS and SCRAM.
     */
    public record SaslPlain(String username, String password) implements SecuredListener {
        @Override
        public Map<String, String> clientSettings() {
            return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                    "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                            + username + "\" password=\"" + password + "\";");
        }

        @Override
        public Map<String, String> brokerSettings(int brokerPort, int controllerPort) {
            var settings = new java.util.HashMap<>(listener("SASL_PLAINTEXT", brokerPort, controllerPort));
            settings.put("sasl.enabled.mechanisms", "PLAIN");
            settings.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
            settings.put("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + username
                            + "\" password=\"" + password + "\" user_" + username + "=\"" + password + "\";");
            return settings;
        }
    }

    /**
     * TLS: the broker presents the key in {@code keystore}; clients (and the broker, to itself) trust the certificates
     * in {@code truststore}. Both PKCS12 files under one password.
     */
    public record Tls(Path keystore, Path truststore, String password) implements SecuredListener {
        @Override
        public Map<String, String> clientSettings() {
            return Map.of("security.protocol", "SSL", "ssl.truststore.location", truststore.toString(),
                    "ssl.truststore.password", password, "ssl.truststore.type", "PKCS12");
        }

        @Override
        public Map<String, String> brokerSettings(int brokerPort, int controllerPort) {
            var settings = new java.util.HashMap<>(listener("SSL", brokerPort, controllerPort));
            settings.put("ssl.keystore.location", keystore.toString());
            settings.put("ssl.keystore.password", password);
            settings.put("ssl.key.password", password);
            settings.put("ssl.keystore.type", "PKCS12");
            settings.putAll(clientSettings());
            settings.remove("security.protocol");
            return settings;
        }
    }

    private static Map<String, String> listener(String protocol, int brokerPort, int controllerPort) {
        return Map.of(
                "listeners", protocol + "://" + HOST + ":" + brokerPort + "," + CONTROLLER_LISTENER + "://" + HOST + ":"
                        + controllerPort,
                "advertised.listeners", protocol + "://" + HOST + ":" + brokerPort,
                "listener.security.protocol.map", protocol + ":" + protocol + "," + CONTROLLER_LISTENER + ":PLAINTEXT",
                "inter.broker.listener.name", protocol);
    }

    /**
     * Starts (formatting the storage on first use only) a broker whose data lives in dataDir; port 0 picks a free
     * port. Blocks until the broker answers (e.g. an Admin describeCluster succeeds), with a clear exception after
     * ~60 s.
     */
    public static EmbeddedKafkaBroker start(Path dataDir, int port) {
        return start(dataDir, port, false);
    }

    /**
     * The same; with {@code autoCreateTopics}, a topic a client writes to or reads that does not exist is created, with
     * one partition, as a Kafka broker does by default: what a user's own producer expects of the standalone broker.
     */
    public static EmbeddedKafkaBroker start(Path dataDir, int port, boolean autoCreateTopics) {
        return start(dataDir, port, autoCreateTopics, null);
    }

    /**
     * A broker whose only client listener is {@code secured}: a client connects with
     * {@link SecuredListener#clientSettings()}, or not at all.
     */
    public static EmbeddedKafkaBroker startSecured(Path dataDir, int port, SecuredListener secured) {
        return start(dataDir, port, false, secured);
    }

    private static EmbeddedKafkaBroker start(Path dataDir, int port, boolean autoCreateTopics, SecuredListener secured) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 (any free port) or 1..65535, was " + port);
        }
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        Path dir = dataDir.toAbsolutePath();
        Path logDir = dir.resolve(LOG_DIR);
        FileChannel lock = lock(dir);
        EmbeddedKafkaBroker broker;
        try {
            Properties state = readState(dir);
            String clusterId = state.getProperty("cluster.id", Uuid.randomUuid().toString());
            int controllerPort = reusablePort(state.getProperty("controller.port"));
            int brokerPort = port != 0 ? port : freePort();
            state.setProperty("cluster.id", clusterId);
            state.setProperty("controller.port", Integer.toString(controllerPort));
            writeState(dir, state);

            // meta.properties is written last by the formatter, so a directory without it was never (fully) formatted.
            if (!Files.exists(logDir.resolve("meta.properties"))) {
                format(logDir, clusterId);
            }
            var settings = new java.util.HashMap<>(config(logDir, brokerPort, controllerPort));
            settings.putAll(requestThreads(Runtime.getRuntime().availableProcessors()));
            settings.put("auto.create.topics.enable", Boolean.toString(autoCreateTopics));
            if (secured != null) {
                settings.putAll(secured.brokerSettings(brokerPort, controllerPort));
            }
            KafkaConfig config = new KafkaConfig(settings, false);
            broker = new EmbeddedKafkaBroker(new KafkaRaftServer(config, Time.SYSTEM), lock, dir, brokerPort, secured);
        } catch (RuntimeException e) {
            closeQuietly(lock);
            throw e;
        }
        try {
            broker.server.startup();
            broker.awaitReady(deadline);
        } catch (RuntimeException e) {
            broker.close();
            throw new IllegalStateException("Embedded Kafka broker in " + dir + " on " + broker.bootstrapServers()
                    + " failed to start (startup timeout " + STARTUP_TIMEOUT.toSeconds() + " s)", e);
        }
        LOG.info("Embedded Kafka broker started on {} with data in {}", broker.bootstrapServers(), dir);
        return broker;
    }

    /**
     * One broker per JVM for tests: started lazily in a fresh temp dir on a free port, shut down (and the temp dir
     * deleted) by a shutdown hook. Thread-safe. Callers must not close it; if one does, the next call restarts it
     * on the same data.
     */
    public static synchronized EmbeddedKafkaBroker shared() {
        if (shared == null) {
            Path dir;
            try {
                dir = Files.createTempDirectory("millrace-kafka-");
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create a temp dir for the shared Kafka broker", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> closeShared(dir), "millrace-kafka-shutdown"));
            shared = start(dir, 0);
        } else if (shared.closed) {
            shared = start(shared.dataDir, 0);
        }
        return shared;
    }

    public String bootstrapServers() {
        return "localhost:" + port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Shuts the broker down cleanly and waits for it; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            closeQuietly(lock);
        }
        LOG.info("Embedded Kafka broker on {} stopped", bootstrapServers());
    }

    private void awaitReady(long deadline) {
        long remainingMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        var client = new java.util.HashMap<String, Object>(secured == null ? Map.of() : secured.clientSettings());
        client.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (Admin admin = Admin.create(client)) {
            // The admin client retries (re)connecting by itself until the timeout.
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) Math.min(remainingMs, Integer.MAX_VALUE)))
                    .nodes()
                    .get(remainingMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the broker", e);
        } catch (Exception e) {
            throw new IllegalStateException("The broker did not answer describeCluster", e);
        }
    }

    /** Values are strings, as in server.properties: typed values must match the config type exactly (e.g. short). */
    private static Map<String, String> config(Path logDir, int brokerPort, int controllerPort) {
        return Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", Integer.toString(NODE_ID)),
                // A static voter set (kraft.version 0): the quorum is this node alone, it elects itself at once.
                Map.entry("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort),
                Map.entry("controller.listener.names", CONTROLLER_LISTENER),
                Map.entry("listeners", "PLAINTEXT://" + HOST + ":" + brokerPort
                        + "," + CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT"),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("log.dirs", logDir.toString()),
                Map.entry("auto.create.topics.enable", "false"),
                Map.entry("num.partitions", "1"),
                Map.entry("default.replication.factor", "1"),
                Map.entry("min.insync.replicas", "1"),
                Map.entry("offsets.topic.replication.factor", "1"),
                Map.entry("offsets.topic.num.partitions", "5"),
                Map.entry("transaction.state.log.replication.factor", "1"),
                Map.entry("transaction.state.log.num.partitions", "5"),
                Map.entry("transaction.state.log.min.isr", "1"),
                Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                Map.entry("share.coordinator.state.topic.min.isr", "1"),
                // No waiting for more group members that will never come.
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                // A restart after a kill waits for the old broker session to expire before the broker can register
                // again: shorter than Kafka's 9 s, but long enough that a process stalled for a few seconds (a loaded
                // laptop, a shared CI machine) does not fence its own broker.
                Map.entry("broker.heartbeat.interval.ms", "500"),
                Map.entry("broker.session.timeout.ms", "6000"),
                // A transaction's first record on a partition waits, on the broker, until the previous transaction's
                // markers are written, retrying every 20 ms by default: most of an exactly-once hop's latency when
                // commits follow each other closely (see docs/TUNING.md, "Broker settings for exactly-once").
                Map.entry("add.partitions.to.txn.retry.backoff.ms", "1"),
                // A killed executor's open transaction holds back every read_committed reader of the partitions it
                // wrote (workers, the read model, a restore) until the broker aborts it: at its transaction timeout
                // (10 s under exactly-once), found by a scan every 10 s by default, so up to 20 s; every second here
                // (docs/TUNING.md, "Broker settings for exactly-once").
                Map.entry("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000"));
    }

    /**
     * The broker's request threads for the cores it shares with the engine. Kafka's defaults, 3 network and 8 I/O
     * threads, are a dedicated server's; on 2 cores 1 and 2 served the same load with 3–11 points of a core less
     * broker CPU at 400–1,600 W1 executions a second, latency alike (docs/TUNING.md, "The embedded broker's
     * threads"). Kafka's defaults again from 12 cores (network) and 16 (I/O).
     */
    static Map<String, String> requestThreads(int cores) {
        return Map.of("num.network.threads", Integer.toString(Math.clamp(cores / 4, 1, 3)),
                "num.io.threads", Integer.toString(Math.clamp(cores / 2, 2, 8)));
    }

    private static void format(Path logDir, String clusterId) {
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setNodeId(NODE_ID)
                    .setClusterId(clusterId)
                    .setDirectories(List.of(logDir.toString()))
                    .setMetadataLogDirectory(logDir.toString())
                    .setControllerListenerName(CONTROLLER_LISTENER)
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot format the Kafka storage in " + logDir, e);
        }
        LOG.info("Formatted Kafka storage in {} for cluster {}", logDir, clusterId);
    }

    /**
     * Holds dataDir exclusively while a broker runs. Kafka's own log dir lock is not enough: it is taken by the
     * broker only after the controller has opened the metadata log, so a second broker on the same dir would corrupt
     * that log (and its fault handler exits the JVM).
     */
    private static FileChannel lock(Path dir) {
        try {
            Files.createDirectories(dir.resolve(LOG_DIR));
            FileChannel channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                if (channel.tryLock() != null) {
                    return channel;
                }
            } catch (OverlappingFileLockException heldInThisJvm) {
                // Same answer as a lock held by another process.
            }
            channel.close();
            throw new IllegalStateException("Another Kafka broker is already running on " + dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create or lock the Kafka data directory " + dir, e);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing releases the lock; nothing else to do.
        }
    }

    private static Properties readState(Path dir) {
        Properties state = new Properties();
        Path file = dir.resolve(STATE_FILE);
        if (Files.exists(file)) {
            try (Reader in = Files.newBufferedReader(file)) {
                state.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + file, e);
            }
        }
        return state;
    }

    /** Written to a temp file and moved, so a killed JVM never leaves a half-written file behind. */
    private static void writeState(Path dir, Properties state) {
        Path file = dir.resolve(STATE_FILE);
        Path tmp = dir.resolve(STATE_FILE + ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(tmp)) {
                state.store(out, "Embedded Kafka broker state, reused on restart");
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    /**
     * The previously used port if it is still free, else a new free one. With a static voter set the controller
     * endpoint is read from the config on each start (it is not stored in the metadata log), so moving is safe.
     */
    private static int reusablePort(String previous) {
        if (previous != null) {
            int port = Integer.parseInt(previous.trim());
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
                return port;
            } catch (IOException taken) {
                LOG.warn("Controller port {} is taken, picking another one", port);
            }
        }
        return freePort();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port", e);
        }
    }

    private static synchronized void closeShared(Path dir) {
        try {
            if (shared != null) {
                shared.close();
            }
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException | UncheckedIOException e) {
                // Best effort: the JVM is exiting anyway.
            }
        }
    }
}
