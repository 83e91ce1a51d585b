package io.millrace.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;

/**
 * The engine as separate processes, as a cluster runs it: a Kafka broker (the embedded KRaft broker in a JVM of its
 * own, on a fixed data dir and port so it can be started again on the same data), an executor, a worker, the gateway
 * (on a fixed port) and the triggers role, each a JVM started from the harness's classpath. {@link #stop} sends
 * SIGKILL (or SIGTERM) to one of them by its process id, {@link #restart} starts it again. Only processes started
 * here are ever signalled; a shutdown hook stops them all (and deletes their data) if the harness itself is stopped.
 */
final class ChaosCluster implements AutoCloseable {
    static final String BROKER = "broker";
    static final String EXECUTOR = "executor-1";
    static final String SECOND_EXECUTOR = "executor-2";
    static final String WORKER = "worker";
    static final String GATEWAY = "gateway";
    static final String TRIGGERS = "triggers";
    private static final String BROKER_MAIN = "io.millrace.broker.BrokerMain";
    private static final String BROKER_UP = "Kafka broker up at ";
    private static final String ROLE_UP = "Millrace metrics at ";
    private static final long START_TIMEOUT_SECONDS = 180;

    private final String engineMainClass;
    private final Path workDir;
    private final Path logDir;
    private final Map<String, String> settings;
    private final int brokerPort;
    private final int gatewayPort;
    private final String token;
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Thread stopOnExit;

    /**
     * @param settings engine settings for every role (guarantee, topic prefix, ...); the cluster adds its broker, the
     *                 gateway's port and token, and each executor's state dir
     */
    private ChaosCluster(String engineMainClass, Path logDir, Map<String, String> settings) throws IOException {
        this.engineMainClass = engineMainClass;
        this.workDir = Files.createTempDirectory("millrace-chaos");
        this.logDir = logDir;
        this.brokerPort = freePort();
        this.gatewayPort = freePort();
        this.token = "chaos-" + java.util.UUID.randomUUID();
        var all = new LinkedHashMap<>(settings);
        all.put("bootstrap-servers", bootstrapServers());
        all.put("management-port", "0");
        this.settings = Map.copyOf(all);
        this.stopOnExit = new Thread(this::stopAll, "chaos-cluster-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
    }

    /** Starts the broker, then the roles, and waits until each says it is up. */
    static ChaosCluster start(String engineMainClass, Path logDir, Map<String, String> settings)
            throws IOException, InterruptedException, TimeoutException {
        Files.createDirectories(logDir);
        var cluster = new ChaosCluster(engineMainClass, logDir, settings);
        try {
            cluster.launch(BROKER);
            for (String role : List.of(EXECUTOR, WORKER, GATEWAY, TRIGGERS)) {
                cluster.launch(role);
            }
            return cluster;
        } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    String bootstrapServers() {
        return "localhost:" + brokerPort;
    }

    URI api() {
        return URI.create("http://localhost:" + gatewayPort + "/api/v1");
    }

    String token() {
        return token;
    }

    /** The engine settings every role runs with, broker included. */
    Map<String, String> settings() {
        return settings;
    }

    /**
     * Starts a second executor (for a rebalance) and waits until it is up; after {@link #stop} of it, starts it again
     * on the same data.
     */
    void addExecutor() throws IOException, InterruptedException, TimeoutException {
        launch(SECOND_EXECUTOR);
    }

    /**
     * SIGKILL (or SIGTERM when {@code graceful}: the process closes as on a scale-down) to the process of
     * {@code name}, by its id; waits until it is gone. {@link #restart} starts it again.
     */
    synchronized long stop(String name, boolean graceful) throws IOException, InterruptedException {
        Process process = processes.get(name);
        long pid = process.pid();
        Process signal = new ProcessBuilder("kill", graceful ? "-15" : "-9", Long.toString(pid)).inheritIO().start();
        if (signal.waitFor() != 0) {
            // the same signal through the JDK
            if (graceful) {
                process.destroy();
            } else {
                process.destroyForcibly();
            }
        }
        if (!process.waitFor(graceful ? 60 : 30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " (pid " + pid + ") did not exit after " + (graceful ? "SIGTERM" : "SIGKILL"));
        }
        return pid;
    }

    /**
     * Waits until the executor group's partitions are spread over at least {@code processes} executor processes (a
     * joined executor took its share: Kafka Streams first warms a copy of a task's state on it, then moves the task at
     * a probing rebalance); false when that did not happen within {@code timeout}.
     */
    boolean awaitExecutorsSharing(String applicationId, int processes, Duration timeout)
            throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            while (System.nanoTime() < deadline) {
                ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(applicationId))
                        .describedGroups().get(applicationId).get();
                // a stream thread's client id is the application id, the Kafka Streams process id, then the thread
                long sharing = group.members().stream()
                        .filter(member -> !member.assignment().topicPartitions().isEmpty())
                        .map(member -> member.clientId().split("-StreamThread-")[0])
                        .distinct().count();
                if (sharing >= processes) {
                    return true;
                }
                Thread.sleep(250);
            }
        }
        return false;
    }

    /** Starts the process of {@code name} again, after {@link #stop}, and waits until it is up. */
    void restart(String name) throws IOException, InterruptedException, TimeoutException {
        launch(name);
    }

    private void launch(String name) throws IOException, InterruptedException, TimeoutException {
        List<String> args;
        String up;
        if (name.equals(BROKER)) {
            args = List.of(workDir.resolve("kafka").toString(), Integer.toString(brokerPort));
            up = BROKER_UP;
        } else {
            args = roleArgs(name);
            up = ROLE_UP;
        }
        Path log = logDir.resolve(name + ".log");
        int before = count(log, up);
        Files.writeString(log, "---- started " + java.time.Instant.now() + "\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        List<String> command = EngineProcess.command(name.equals(BROKER) ? BROKER_MAIN : engineMainClass,
                EngineBuild.OWN, args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        synchronized (this) {
            processes.put(name, process);
        }
        awaitUp(name, process, log, up, before);
    }

    private List<String> roleArgs(String name) {
        var args = new ArrayList<String>();
        args.add(name.startsWith("executor") ? "executor" : name);
        var roleSettings = new LinkedHashMap<>(settings);
        // each role's data of its own, in this cluster's folder: a default data dir is shared by every engine started
        // from the same place, and a read model restored from another cluster's checkpoint skips records
        roleSettings.put("data-dir", workDir.resolve(name).toString());
        roleSettings.remove("state-dir");
        // the chaos load's trigger topic is on the cluster's own broker
        roleSettings.putIfAbsent("task-kafka-allow-engine-cluster", "true");
        if (name.equals(GATEWAY)) {
            roleSettings.put("port", Integer.toString(gatewayPort));
            roleSettings.put("auth-tokens", token);
        }
        roleSettings.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
        return args;
    }

    /** Waits until the log says {@code up} once more than it did before the launch. */
    private static void awaitUp(String name, Process process, Path log, String up, int before)
            throws IOException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (count(log, up) > before) {
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue() + " before it was up; see " + log);
            }
            Thread.sleep(100);
        }
        throw new TimeoutException(name + " was not up within " + START_TIMEOUT_SECONDS + " s; see " + log);
    }

    private static int count(Path log, String marker) throws IOException {
        if (!Files.exists(log)) {
            return 0;
        }
        String text = Files.readString(log, StandardCharsets.ISO_8859_1);
        int n = 0;
        for (int i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) {
            n++;
        }
        return n;
    }

    /** Stops every process (SIGTERM, then SIGKILL after 20 s), roles before the broker, and deletes their data. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            return; // the hook is stopping them
        }
        stopAll();
    }

    private synchronized void stopAll() {
        var roles = new ArrayList<Process>();
        processes.forEach((name, p) -> {
            if (!name.equals(BROKER)) {
                roles.add(p);
            }
        });
        stop(roles);
        if (processes.containsKey(BROKER)) {
            stop(List.of(processes.get(BROKER)));
        }
        try (Stream<Path> paths = Files.walk(workDir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            System.err.println("Could not delete the chaos cluster's data in " + workDir + ": " + e);
        }
    }

    private static void stop(List<Process> group) {
        group.forEach(Process::destroy);
        for (Process p : group) {
            try {
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException interrupted) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
