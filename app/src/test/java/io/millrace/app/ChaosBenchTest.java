package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code millrace bench --chaos}, reduced: the engine as separate processes (broker, executor, worker, gateway,
 * triggers) under a light load through Kafka, REST and a Kafka trigger; the executor and then the worker are killed
 * with SIGKILL and started again. Every accepted start ends exactly once: none lost, none doubled.
 */
class ChaosBenchTest {
    @TempDir
    Path out;

    @Test
    void shouldLoseAndDoubleNothingWhenTheExecutorAndTheWorkerAreKilled() throws Exception {
        // when
        int exit = Millrace.commandLine().execute("bench", "--chaos", "--faults", "executor,worker", "--rates", "20",
                "--chaos-pause", "8s", "--drain", "60s", "--processing-guarantee", "exactly_once_v2",
                "--out", out.toString());

        // then
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv.getFirst()).isEqualTo("guarantee,fault,accepted,via_kafka,via_rest,via_trigger,ended_once,lost,"
                + "doubled,resent,rest_unanswered,rest_refused,rest_failed");
        assertThat(csv.subList(1, csv.size())).extracting(line -> line.split(",")[1])
                .containsExactly("\"none (steady)\"", "\"executor\"", "\"worker\"");
        assertThat(csv.subList(1, csv.size())).allSatisfy(line -> {
            String[] row = line.split(",");
            assertThat(Long.parseLong(row[2])).as("accepted in %s", row[1]).isPositive();
            assertThat(Long.parseLong(row[3])).as("accepted through Kafka in %s", row[1]).isPositive();
            assertThat(Long.parseLong(row[4])).as("accepted through REST in %s", row[1]).isPositive();
            assertThat(row[6]).as("ended once in %s", row[1]).isEqualTo(row[2]);
            assertThat(row[7]).as("lost in %s", row[1]).isEqualTo("0");
            assertThat(row[8]).as("doubled in %s", row[1]).isEqualTo("0");
        });
        assertThat(exit).isZero();
        assertThat(out.resolve("logs-exactly_once_v2").resolve("executor-1.log")).content().contains("---- started");
    }
}
