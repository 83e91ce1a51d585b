package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine a harness started, and its data, do not outlive the harness, however the harness is stopped. */
class EngineProcessTest {

    @Test
    void shouldStopTheEngineAndDeleteItsDataWhenTheHarnessIsTerminated(@TempDir Path dir) throws Exception {
        // given: a harness JVM that started an engine
        Process harness = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
                Harness.class.getName(), dir.toString()).redirectErrorStream(true).start();
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
            var engine = EngineProcess.start(FakeEngine.class.getName(), Path.of(args[0]).resolve("logs"), Map.of(), 1);
            List<Long> pids = engine.pids();
            System.out.println("engine " + pids.getFirst());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** Writes to its data folder and says where, says it is up the way the standalone engine does, then waits. */
    public static final class FakeEngine {
        public static void main(String[] args) throws Exception {
            Path data = Path.of(args[List.of(args).indexOf("--data-dir") + 1]);
            Files.createDirectories(data);
            Files.writeString(data.resolve("state"), "x");
            System.out.println("data " + data);
            System.out.println("Millrace is up. API: http://localhost:1/  (Kafka at localhost:2)");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
