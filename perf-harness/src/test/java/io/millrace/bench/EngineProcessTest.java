package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine a harness started, and its data, do not outlive the harness, however the harness is stopped; an engine
 * runs from the harness's own classpath or from a given jar.
 */
class EngineProcessTest {

    @Test
    void shouldLaunchTheEngineFromTheGivenJar() {
        // when
        List<String> command = EngineProcess.command("io.millrace.app.Millrace",
                new EngineBuild("before", Path.of("before/millrace.jar")), List.of("standalone", "--port", "0"));

        // then
        assertThat(command).containsExactly(java(), "--enable-native-access=ALL-UNNAMED", "-jar",
                Path.of("before/millrace.jar").toAbsolutePath().toString(), "standalone", "--port", "0");
    }

    @Test
    void shouldLaunchTheEngineFromTheHarnessClasspathWithoutAJar() {
        List<String> command = EngineProcess.command("io.millrace.app.Millrace", EngineBuild.OWN, List.of("standalone"));

        assertThat(command).containsExactly(java(), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "io.millrace.app.Millrace", "standalone");
    }

    @Test
    void shouldPutTheGivenJavaOptionsAfterTheDefaultsSoThatTheyWin() {
        // when
        List<String> command = EngineProcess.command("io.millrace.app.Millrace", EngineBuild.OWN,
                List.of("-XX:MaxTenuringThreshold=2", "-Xmx1g"), List.of("standalone"));

        // then
        assertThat(command.subList(1, 4)).containsExactly("--enable-native-access=ALL-UNNAMED",
                "-XX:MaxTenuringThreshold=2", "-Xmx1g");
    }

    @Test
    void shouldStartEnginesWithTheJvmOptionsOfTheLauncher() throws Exception {
        // given: the launcher every user and image starts the engine with
        String launcher = Files.readString(Path.of("..", "bin", "millrace"));

        // then: the bench's engines run as the launcher's do
        assertThat(launcher).contains("exec \"$java_home/bin/java\" " + String.join(" ", EngineProcess.JVM_DEFAULTS)
                + " ${MILLRACE_JAVA_OPTS:-}");
    }

    @Test
    void shouldRunAnEngineFromAJarUntilClosed(@TempDir Path dir) throws Exception {
        // given: a runnable jar whose engine says it is up the way the standalone engine does
        Path jar = fakeEngineJar(dir.resolve("fake-engine.jar"));

        // when
        ProcessHandle process;
        try (EngineProcess engine = EngineProcess.start("not.on.the.Classpath", new EngineBuild("fake", jar),
                dir.resolve("logs"), Map.of("poll-ms", "3"), 1)) {
            // then
            assertThat(engine.api()).hasToString("http://localhost:1/");
            assertThat(engine.bootstrapServers()).isEqualTo("localhost:2");
            process = ProcessHandle.of(engine.pids().getFirst()).orElseThrow();
            assertThat(process.info().arguments().map(List::of).orElseThrow())
                    .containsSequence("-jar", jar.toAbsolutePath().toString(), "standalone")
                    .containsSequence("--set", "poll-ms=3");
        }
        assertThat(process.isAlive()).as("the engine after close").isFalse();
    }

    @Test
    void shouldKillTheEngineAndStartItAgainOnTheSameData(@TempDir Path dir) throws Exception {
        // given: an engine from a jar, whose command line is short enough to be read back
        try (EngineProcess engine = EngineProcess.start("not.on.the.Classpath",
                new EngineBuild("fake", fakeEngineJar(dir.resolve("fake-engine.jar"))), dir.resolve("logs"), Map.of(), 1)) {
            ProcessHandle first = ProcessHandle.of(engine.pids().getFirst()).orElseThrow();
            List<String> arguments = first.info().arguments().map(List::of).orElseThrow();

            // when
            long killed = engine.killAndRestart();

            // then: the same command, so the same data folder and Kafka port, and the data the first left is there
            assertThat(killed).isEqualTo(first.pid());
            assertThat(first.isAlive()).as("the killed engine").isFalse();
            ProcessHandle second = ProcessHandle.of(engine.pids().getFirst()).orElseThrow();
            assertThat(second.pid()).isNotEqualTo(first.pid());
            assertThat(second.info().arguments().map(List::of).orElseThrow()).isEqualTo(arguments);
            assertThat(dir.resolve("logs").resolve("engine-standalone-restart-1.log")).content()
                    .contains("data kept", "Millrace is up");
            assertThat(engine.api()).hasToString("http://localhost:1/");
        }
    }

    /** A jar holding {@link FakeEngine} as its main class, as the app module's jar holds the launcher. */
    private static Path fakeEngineJar(Path jar) throws Exception {
        var manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FakeEngine.class.getName());
        String entry = FakeEngine.class.getName().replace('.', '/') + ".class";
        try (var out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             InputStream in = FakeEngine.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    @Test
    void shouldStopTheEngineAndDeleteItsDataWhenTheHarnessIsTerminated(@TempDir Path dir) throws Exception {
        // given: a harness JVM that started an engine
        Process harness = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
                // its standard error apart: the launcher writes there the options it picked up from the environment
                Harness.class.getName(), dir.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        ProcessHandle engine = null;
        try (BufferedReader out = harness.inputReader()) {
            String line = out.readLine();
            assertThat(line).as("the harness's first line").startsWith("engine ");
            engine = ProcessHandle.of(Long.parseLong(line.substring("engine ".length()))).orElseThrow();

            // when: the harness gets SIGTERM, not the engine
            harness.destroy();

            // then
            assertThat(harness.waitFor(60, TimeUnit.SECONDS)).isTrue();
            ProcessHandle afterWait = engine.onExit().completeOnTimeout(engine, 60, TimeUnit.SECONDS).get();
            assertThat(afterWait.isAlive()).as("the engine is still running").isFalse();
            Path data = Path.of(Files.readString(dir.resolve("logs").resolve("engine-standalone.log")).lines()
                    .filter(l -> l.startsWith("data ")).findFirst().orElseThrow().substring("data ".length()));
            assertThat(data.getParent()).as("the engine's work folder").doesNotExist();
        } finally {
            harness.destroyForcibly();
            if (engine != null) {
                engine.destroyForcibly();
            }
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Starts an engine, says its process id, then waits to be stopped. */
    public static final class Harness {
        public static void main(String[] args) throws Exception {
            var engine = EngineProcess.start(FakeEngine.class.getName(), EngineBuild.OWN, Path.of(args[0]).resolve("logs"),
                    Map.of(), 1);
            List<Long> pids = engine.pids();
            System.out.println("engine " + pids.getFirst());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** Says whether its data folder held data, writes to it and says where, says it is up the way the standalone engine does, then waits. */
    public static final class FakeEngine {
        public static void main(String[] args) throws Exception {
            Path data = Path.of(args[List.of(args).indexOf("--data-dir") + 1]);
            if (Files.exists(data.resolve("state"))) {
                System.out.println("data kept");
            }
            Files.createDirectories(data);
            Files.writeString(data.resolve("state"), "x");
            System.out.println("data " + data);
            System.out.println("Millrace is up. API: http://localhost:1/  (Kafka at localhost:2)");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
