package io.millrace.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A standalone engine started by the harness in its own JVM (so its CPU and heap are its own), plus any extra
 * executor instances against the same embedded broker. Output goes to log files in the results folder.
 */
final class EngineProcess implements AutoCloseable {
    private static final Pattern UP = Pattern.compile("Millrace is up\\. API: (\\S+)\\s+\\(Kafka at ([^)]+)\\)");
    private static final long START_TIMEOUT_SECONDS = 180;

    private final List<Process> processes;
    private final List<Path> stateDirs;
    private final URI api;
    private final String bootstrapServers;

    private EngineProcess(List<Process> processes, List<Path> stateDirs, URI api, String bootstrapServers) {
        this.processes = processes;
        this.stateDirs = stateDirs;
        this.api = api;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts {@code mainClass standalone} from this JVM's classpath with {@code settings} (as {@code --set}), data
     * under {@code workDir}, then {@code executors - 1} more executor processes; waits until the engine is up.
     */
    static EngineProcess start(String mainClass, Path workDir, Path logDir, Map<String, String> settings, int executors)
            throws IOException, InterruptedException, TimeoutException {
        Files.createDirectories(logDir);
        var processes = new ArrayList<Process>();
        var stateDirs = new ArrayList<Path>();
        try {
            Path data = workDir.resolve("data");
            stateDirs.add(data.resolve("state"));
            var args = new ArrayList<>(List.of("standalone", "--data-dir", data.toString(), "--port", "0",
                    "--kafka-port", Integer.toString(freePort())));
            addSettings(args, settings);
            var up = new CompletableFuture<Matcher>();
            Process standalone = launch(mainClass, args, logDir.resolve("engine-standalone.log"), line -> {
                Matcher m = UP.matcher(line);
                if (m.find()) {
                    up.complete(m);
                }
            });
            processes.add(standalone);
            standalone.onExit().thenRun(() -> up.completeExceptionally(new IllegalStateException(
                    "The engine exited with code " + standalone.exitValue() + " before it was up; see " + logDir.resolve("engine-standalone.log"))));
            Matcher m;
            try {
                m = up.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
            }
            URI api = URI.create(m.group(1));
            String bootstrap = m.group(2).trim();
            for (int i = 2; i <= executors; i++) {
                Path state = workDir.resolve("executor-" + i).resolve("state");
                stateDirs.add(state);
                var executorArgs = new ArrayList<>(List.of("executor", "--bootstrap-servers", bootstrap, "--set", "state-dir=" + state));
                addSettings(executorArgs, settings);
                processes.add(launch(mainClass, executorArgs, logDir.resolve("engine-executor-" + i + ".log"), line -> { }));
            }
            return new EngineProcess(processes, stateDirs, api, bootstrap);
        } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
            new EngineProcess(processes, stateDirs, null, null).close();
            throw e;
        }
    }

    URI api() {
        return api;
    }

    String bootstrapServers() {
        return bootstrapServers;
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

    /** Stops every process (SIGTERM, then SIGKILL after 30 s), extra executors first. */
    @Override
    public void close() throws InterruptedException {
        for (Process p : processes.reversed()) {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    private static void addSettings(List<String> args, Map<String, String> settings) {
        settings.forEach((k, v) -> {
            args.add("--set");
            args.add(k + "=" + v);
        });
    }

    private static Process launch(String mainClass, List<String> args, Path log, java.util.function.Consumer<String> onLine)
            throws IOException {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        var out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true);
        Thread.ofPlatform().name("bench-log-" + process.pid()).daemon().start(() -> {
            try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)); out) {
                String line;
                while ((line = in.readLine()) != null) {
                    out.println(line);
                    onLine.accept(line);
                }
            } catch (IOException e) {
                out.println("bench: log copy ended: " + e);
            }
        });
        return process;
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
