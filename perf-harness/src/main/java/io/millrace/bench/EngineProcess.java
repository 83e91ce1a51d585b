package io.millrace.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A standalone engine started by the harness in its own JVM (so its CPU and heap are its own), from the harness's
 * own build or a given jar, plus any extra executor instances of the same build against the same embedded broker. Their data lives in a temporary folder; output goes to log
 * files in the results folder. The processes are stopped and the data deleted on {@link #close()}, or by a shutdown
 * hook when the harness itself is stopped (SIGTERM, SIGINT), so an ended harness never leaves an engine behind.
 */
final class EngineProcess implements AutoCloseable {
    private static final Pattern UP = Pattern.compile("Millrace is up\\. API: (\\S+)\\s+\\(Kafka at ([^)]+)\\)");
    private static final Pattern METRICS = Pattern.compile("Millrace metrics at (\\S+),");
    private static final long START_TIMEOUT_SECONDS = 180;
    /**
     * The options every engine JVM starts with, as {@code bin/millrace} starts one ({@code EngineProcessTest} keeps the
     * two alike); a setting's {@link Setting#JAVA_OPTIONS} come after them.
     */
    static final List<String> JVM_DEFAULTS = List.of("--enable-native-access=ALL-UNNAMED");

    /** The standalone engine first, then the extra executors; {@link #killAndRestart} replaces the first. */
    private final List<Process> processes;
    private final Path workDir;
    private final Thread stopOnExit;
    private final List<Path> stateDirs;
    private final List<String> standaloneCommand;
    private final Path logDir;
    private final String bootstrapServers;
    /** Each process's output, in the order of {@link #processes}. */
    private final List<Path> logs;
    /** Each log's metrics address, once it printed it. */
    private final Map<Path, URI> metrics = new ConcurrentHashMap<>();
    private volatile URI api;
    private int restarts;

    private EngineProcess(List<Process> processes, List<Path> logs, Path workDir, Thread stopOnExit, List<Path> stateDirs,
                          List<String> standaloneCommand, Path logDir, URI api, String bootstrapServers) {
        this.processes = processes;
        this.logs = logs;
        this.workDir = workDir;
        this.stopOnExit = stopOnExit;
        this.stateDirs = stateDirs;
        this.standaloneCommand = standaloneCommand;
        this.logDir = logDir;
        this.api = api;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts {@code standalone} from {@code build} (its jar, or {@code mainClass} from this JVM's classpath) with
     * {@code settings} (as {@code --set}), data in a new temporary folder, then {@code executors - 1} more executor
     * processes of the same build; waits until the engine is up.
     */
    static EngineProcess start(String mainClass, EngineBuild build, Path logDir, Map<String, String> settings, int executors)
            throws IOException, InterruptedException, TimeoutException {
        return start(mainClass, build, List.of(), logDir, settings, executors);
    }

    /** As {@link #start(String, EngineBuild, Path, Map, int)}, each JVM with {@code javaOptions} after the defaults. */
    static EngineProcess start(String mainClass, EngineBuild build, List<String> javaOptions, Path logDir,
            Map<String, String> settings, int executors) throws IOException, InterruptedException, TimeoutException {
        Files.createDirectories(logDir);
        Path workDir = Files.createTempDirectory("millrace-bench");
        var processes = new CopyOnWriteArrayList<Process>();
        var logs = new CopyOnWriteArrayList<Path>();
        Thread stopOnExit = new Thread(() -> stop(processes, workDir), "bench-engine-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        var stateDirs = new ArrayList<Path>();
        try {
            Path data = workDir.resolve("data");
            stateDirs.add(data.resolve("state"));
            var args = new ArrayList<>(List.of("standalone", "--data-dir", data.toString(), "--port", "0",
                    "--kafka-port", Integer.toString(freePort()), "--set", "management-port=0"));
            addSettings(args, settings);
            Path standaloneLog = logDir.resolve("engine-standalone.log");
            List<String> standaloneCommand = command(mainClass, build, javaOptions, args);
            Process standalone = launch(standaloneCommand, standaloneLog);
            processes.add(standalone);
            logs.add(standaloneLog);
            Matcher m = awaitUp(standalone, standaloneLog);
            URI api = URI.create(m.group(1));
            String bootstrap = m.group(2).trim();
            for (int i = 2; i <= executors; i++) {
                Path state = workDir.resolve("executor-" + i).resolve("state");
                stateDirs.add(state);
                var executorArgs = new ArrayList<>(List.of("executor", "--bootstrap-servers", bootstrap, "--set", "state-dir=" + state,
                        "--set", "management-port=0"));
                addSettings(executorArgs, settings);
                Path executorLog = logDir.resolve("engine-executor-" + i + ".log");
                processes.add(launch(command(mainClass, build, javaOptions, executorArgs), executorLog));
                logs.add(executorLog);
            }
            return new EngineProcess(processes, logs, workDir, stopOnExit, stateDirs, standaloneCommand, logDir, api, bootstrap);
        } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
            new EngineProcess(processes, logs, workDir, stopOnExit, stateDirs, List.of(), logDir, null, null).close();
            throw e;
        }
    }

    URI api() {
        return api;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    /** The metrics addresses its processes printed so far (a process still starting has none yet). */
    List<URI> metricsUrls() {
        var found = new ArrayList<URI>();
        for (Path log : logs) {
            URI uri = metrics.get(log);
            if (uri == null) {
                try {
                    Matcher m = METRICS.matcher(Files.readString(log, StandardCharsets.UTF_8));
                    if (m.find()) {
                        uri = URI.create(m.group(1));
                        metrics.put(log, uri);
                    }
                } catch (IOException e) {
                    // not written yet
                }
            }
            if (uri != null) {
                found.add(uri);
            }
        }
        return found;
    }

    /**
     * SIGKILL to the standalone engine ({@code kill -9} to the process id started here), then the same command again:
     * the same data folder, so the broker's log and the state stores it left, and the same Kafka port, so clients
     * reconnect. Waits until it is up; the API's port may change ({@link #api()} has the new one). Extra executors keep
     * running and reconnect. The restarted engine's output goes to {@code engine-standalone-restart-<n>.log}.
     *
     * @return the killed process's id
     */
    synchronized long killAndRestart() throws IOException, InterruptedException, TimeoutException {
        Process standalone = processes.getFirst();
        long pid = standalone.pid();
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start();
        if (kill.waitFor() != 0) {
            standalone.destroyForcibly(); // SIGKILL as well, through the JDK
        }
        if (!standalone.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The engine (pid " + pid + ") did not exit after SIGKILL");
        }
        restarts++;
        Path log = logDir.resolve("engine-standalone-restart-" + restarts + ".log");
        Process again = launch(standaloneCommand, log);
        processes.set(0, again);
        logs.set(0, log);
        Matcher m = awaitUp(again, log);
        if (!m.group(2).trim().equals(bootstrapServers)) {
            throw new IllegalStateException("The restarted engine's Kafka is at " + m.group(2).trim() + ", not at "
                    + bootstrapServers + " as before; see " + log);
        }
        api = URI.create(m.group(1));
        return pid;
    }

    List<Long> pids() {
        return processes.stream().map(Process::pid).toList();
    }

    /** Size on disk of the engine's state directories (RocksDB stores and checkpoints), in MiB. */
    double storeMb() {
        long bytes = 0;
        for (Path dir : stateDirs) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.walk(dir)) {
                    bytes += files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
                } catch (IOException | java.io.UncheckedIOException e) {
                    return Double.NaN;
                }
            }
        }
        return bytes / (1024.0 * 1024.0);
    }

    /** Stops every process (SIGTERM, then SIGKILL after 30 s), extra executors first, then deletes their data. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            return; // the hook is stopping the processes
        }
        stop(processes, workDir);
    }

    private static void stop(List<Process> processes, Path workDir) {
        for (Process p : processes.reversed()) {
            p.destroy();
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> paths = Files.walk(workDir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            System.err.println("Could not delete the engine's data in " + workDir + ": " + e);
        }
    }

    private static void addSettings(List<String> args, Map<String, String> settings) {
        settings.forEach((k, v) -> {
            args.add("--set");
            args.add(k + "=" + v);
        });
    }

    /** The command line of one engine process with the default JVM options. */
    static List<String> command(String mainClass, EngineBuild build, List<String> args) {
        return command(mainClass, build, List.of(), args);
    }

    /**
     * The command line of one engine process: this JVM's {@code java}, {@link #JVM_DEFAULTS}, {@code javaOptions}, the
     * build's launch arguments, then {@code args}.
     */
    static List<String> command(String mainClass, EngineBuild build, List<String> javaOptions, List<String> args) {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(JVM_DEFAULTS);
        command.addAll(javaOptions);
        command.addAll(build.launchArguments(mainClass));
        command.addAll(args);
        return command;
    }

    /**
     * Starts a JVM whose output goes straight to {@code log} (the kernel writes it: a slow reader can never block
     * the engine's logging).
     */
    private static Process launch(List<String> command, Path log) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Reads the log until the engine says it is up; fails if it exits first or takes too long. */
    private static Matcher awaitUp(Process process, Path log) throws IOException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            Matcher m = UP.matcher(Files.readString(log, StandardCharsets.UTF_8));
            if (m.find()) {
                return m;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("The engine exited with code " + process.exitValue()
                        + " before it was up; see " + log);
            }
            Thread.sleep(200);
        }
        throw new TimeoutException("The engine was not up within " + START_TIMEOUT_SECONDS + " s; see " + log);
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
