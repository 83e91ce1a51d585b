package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code millrace bench --poison}, reduced: W1 at 20/s over two windows of 6 s, two poisons in the second, then the
 * restart phase (issue #24): SIGKILL to the standalone engine the bench started, a restart on the same data, and its
 * judgement: idle, nothing spins; each poison execution stays as it ended; every execution ended exactly once.
 */
class PoisonBenchRestartTest {
    @TempDir
    Path out;

    @Test
    void shouldFindTheRestartedEngineIdleWithEveryExecutionEndedOnce() throws Exception {
        // when
        int exit = Millrace.commandLine().execute("bench", "--poison", "--poison-only", "endless-jsonata,long-sleep",
                "--rates", "20", "--warmup", "2s", "--warmup-max", "2s", "--duration", "6s", "--drain", "30s",
                "--floor-duration", "1s", "--out", out.toString(),
                // the killed engine's consumers leave their groups after 6 s, not 45: the restart takes seconds
                "--set", "kafka.consumer.session.timeout.ms=6000");

        // then
        String md = Files.readString(out.resolve("poison.md"));
        assertThat(md).contains("| SIGKILL, restart on the same data | up again |")
                .containsPattern("\\| after the restart: idle CPU \\| [0-9.]+ % of one core over 10 s \\|  \\| yes \\|")
                .contains("| after the restart: poison executions stay ended | 2 of 2 as they ended |  | yes |")
                .containsPattern("\\| after the restart: every accepted execution ended once \\| (\\d+) accepted: \\1 once, "
                        + "0 lost, 0 doubled \\|  \\| yes \\|");
        // the load's p99 on a shared machine is not this test's concern, but the exit code follows the table
        assertThat(exit).isEqualTo(md.contains("**no**") ? 1 : 0);
        assertThat(out.resolve("logs-1").resolve("engine-standalone-restart-1.log")).content().contains("Millrace is up");
    }
}
