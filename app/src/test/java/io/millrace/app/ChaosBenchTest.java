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
 * with SIGKILL and started again, then a second executor joins, takes its share of the partitions (a warmed copy
 * first, then the task at a probing rebalance: within the suite's three minutes, where Kafka Streams' own probing
 * interval of ten would not hand it one), and the first is stopped with SIGTERM. Every accepted start ends exactly
 * once: none lost, none doubled.
 */
class ChaosBenchTest {
    @TempDir
    Path out;

    @Test
    void shouldLoseAndDoubleNothingWhenTheExecutorAndTheWorkerAreKilledAndTheExecutorsScaled() throws Exception {
        // when
        int exit = Millrace.commandLine().execute("bench", "--chaos", "--faults", "executor,worker,executor-scale",
                "--rates", "20",
                "--chaos-pause", "8s", "--warmup", "5s", "--drain", "60s", "--processing-guarantee", "exactly_once_v2",
                // at this load a joining executor's lag (about 3,000 changelog offsets a task) would be within Kafka
                // Streams' 10,000, and it would get a task at once; a warmed copy is within 1,000 (0 it never is)
                "--set", "kafka.acceptable.recovery.lag=1000",
                "--out", out.toString());

        // then
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv.getFirst()).isEqualTo("guarantee,fault,accepted,via_kafka,via_rest,via_trigger,ended_once,lost,"
                + "doubled,resent,rest_unanswered,rest_refused,rest_failed");
        assertThat(csv.subList(1, csv.size())).extracting(line -> line.split(",")[1])
                .containsExactly("\"warm-up\"", "\"none (steady)\"", "\"executor\"", "\"worker\"", "\"executor-scale\"");
        assertThat(csv.subList(1, csv.size())).allSatisfy(line -> {
            String[] row = line.split(",");
            assertThat(Long.parseLong(row[2])).as("accepted in %s", row[1]).isPositive();
            assertThat(Long.parseLong(row[3])).as("accepted through Kafka in %s", row[1]).isPositive();
            assertThat(Long.parseLong(row[4])).as("accepted through REST in %s", row[1]).isPositive();
            assertThat(row[6]).as("ended once in %s", row[1]).isEqualTo(row[2]);
            assertThat(row[7]).as("lost in %s", row[1]).isEqualTo("0");
            assertThat(row[8]).as("doubled in %s", row[1]).isEqualTo("0");
        });
        List<String> pauses = Files.readAllLines(out.resolve("pauses.csv"));
        assertThat(pauses.subList(1, pauses.size())).extracting(line -> line.split(",")[1]).containsExactly(
                "\"none (steady)\"", "\"executor: SIGKILL to executor-1\"", "\"executor: executor-1 started again\"",
                "\"worker: SIGKILL to worker\"", "\"worker: worker started again\"",
                "\"executor-scale: executor-2 started\"", "\"executor-scale: executor-2 holds partitions\"",
                "\"executor-scale: SIGTERM to executor-1\"",
                "\"executor-scale: executor-1 started again\"", "\"executor-scale: SIGTERM to executor-2\"");
        // the only executor killed stops every ending for seconds: a stretch with no ending that covers the kill (on a
        // slow machine it may have begun a while before it, at the last ending)
        String[] steady = pauses.get(1).split(",");
        String[] kill = pauses.get(2).split(",");
        double longest = Double.parseDouble(kill[3]);
        double began = Double.parseDouble(kill[4]);
        assertThat(longest).as("longest with no ending after the executor's kill").isGreaterThan(1_000);
        assertThat(began).as("when it began, from the kill").isLessThanOrEqualTo(1_000);
        assertThat(began + longest).as("when it ended, from the kill").isGreaterThan(1_000);
        assertThat(Long.parseLong(steady[5])).as("Kafka starts sent in the steady window").isPositive();
        assertThat(steady[6]).as("of them ended").isEqualTo(steady[5]);
        assertThat(exit).isZero();
        assertThat(out.resolve("logs-exactly_once_v2").resolve("executor-1.log")).content().contains("---- started");
    }
}
