package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The probe reads another JVM's CPU per thread over JMX and charges it to the part the thread's name tells. */
class EngineProbeTest {

    @Test
    void shouldChargeABusyThreadOfAnotherProcessToItsPart() throws Exception {
        // given: a JVM whose only busy thread is named like a worker's
        Process engine = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), BusyWorker.class.getName())
                // its standard error apart: the launcher writes there the options it picked up from the environment
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = engine.inputReader();
             EngineProbe probe = awaitUp(out, engine)) {
            CpuReading before = probe.cpu();
            long from = System.nanoTime();

            // when
            Thread.sleep(2_000);
            CpuUse use = probe.cpu().since(before, System.nanoTime() - from);

            // then: the spinning thread had a share of a core (however busy the machine); no broker or Kafka client
            assertThat(use.pct(EnginePart.WORKERS)).isGreaterThan(5);
            assertThat(use.pct(EnginePart.BROKER)).isZero();
            assertThat(use.pct(EnginePart.CLIENTS)).isZero();
            assertThat(use.totalPct()).isGreaterThanOrEqualTo(use.pct(EnginePart.WORKERS));
        } finally {
            engine.destroyForcibly();
        }
    }

    private static EngineProbe awaitUp(BufferedReader out, Process engine) throws Exception {
        assertThat(out.readLine()).as("the engine's first line").isEqualTo("up");
        return EngineProbe.attach(List.of(engine.pid()));
    }

    /** Spins on a thread named like a worker's poll thread until it is ended. */
    public static final class BusyWorker {
        private static volatile long spins;

        public static void main(String[] args) throws Exception {
            Thread.ofPlatform().daemon().name("millrace-worker-poll-busy").start(() -> {
                while (true) {
                    spins++;
                }
            });
            System.out.println("up");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
