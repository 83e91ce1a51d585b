package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code millrace bench} end to end: it starts a standalone engine in its own JVM, deploys W1, starts executions
 * through Kafka (at-least-once) or the REST gateway (exactly-once) at a low rate and writes the table, CSV and chart.
 * No latency is asserted (that is the harness's job, not the test suite's); the test checks that every execution was
 * started, ended and was reported, and that the floor has its exactly-once pair under that guarantee only.
 */
class BenchCommandTest {
    @TempDir
    Path out;

    @ParameterizedTest
    @CsvSource({"kafka, at_least_once", "rest, exactly_once_v2"})
    void shouldMeasureASelfStartedEngineAndWriteTheResults(String via, String guarantee) throws Exception {
        // when
        int exit = Millrace.commandLine().execute("bench", "--workload", "W1", "--rates", "20", "--warmup", "2s",
                "--warmup-max", "2s", "--duration", "4s", "--drain", "60s", "--floor-duration", "1s", "--processing-guarantee", guarantee,
                "--via", via, "--out", out.toString());

        // then
        assertThat(exit).isZero();
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv).hasSize(2);
        assertThat(csv.getFirst()).startsWith("workload,guarantee,offered_per_s,achieved_per_s,p50_ms,p90_ms,p99_ms,p999_ms,"
                + "max_ms,failures,floor_p50_ms");
        String[] row = csv.get(1).split(",", -1); // -1: the trailing empty columns too
        assertThat(row[0]).isEqualTo("W1");
        assertThat(row[1]).isEqualTo(guarantee);
        assertThat(Double.parseDouble(row[2])).isEqualTo(20.0);
        assertThat(Double.parseDouble(row[3])).isPositive();
        assertThat(Double.parseDouble(row[4])).isPositive();
        assertThat(row[9]).isEqualTo("0");
        assertThat(Double.parseDouble(row[10])).isPositive();
        // the exactly-once pair is measured under that guarantee only
        if (guarantee.equals("exactly_once_v2")) {
            assertThat(Double.parseDouble(row[11])).isPositive();
        } else {
            assertThat(row[11]).isEmpty();
        }
        // the engine's own means per hop, read from its metrics over the window
        List<String> columns = List.of(csv.getFirst().split(","));
        for (String hop : List.of("queued", "to_workers", "results_back")) {
            String mean = row[columns.indexOf("hop_" + hop + "_mean_ms")];
            assertThat(mean).as("the engine's mean of " + hop).isNotEmpty();
            assertThat(Double.parseDouble(mean)).isNotNegative();
        }
        // the embedded broker's requests over the same executions; its transactions under exactly-once only
        String requests = row[columns.indexOf("broker_requests_per_exec")];
        assertThat(requests).as("the broker's requests an execution").isNotEmpty();
        assertThat(Double.parseDouble(requests)).isGreaterThanOrEqualTo(
                Double.parseDouble(row[columns.indexOf("broker_produce_per_exec")])).isPositive();
        assertThat(Double.parseDouble(row[columns.indexOf("broker_produce_mean_ms")])).isNotNegative();
        String commits = row[columns.indexOf("broker_end_txn_mean_ms")];
        if (guarantee.equals("exactly_once_v2")) {
            assertThat(Double.parseDouble(commits)).isNotNegative();
        } else {
            assertThat(commits).isEmpty();
        }
        assertThat(Files.readString(out.resolve("latency.svg"))).contains("<svg", "polyline");
        assertThat(Files.readString(out.resolve("results.md"))).contains("| W1 ");
        assertThat(out.resolve("logs-1").resolve("engine-standalone.log")).content().contains("Millrace is up");
    }
}
