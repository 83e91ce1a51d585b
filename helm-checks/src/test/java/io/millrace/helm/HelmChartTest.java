package io.millrace.helm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The chart checks of helm/check, in the build: helm lint --strict, helm template with the default and
 * the production values, kubeconform against the Kubernetes 1.33 schemas, the values schema refusing
 * a misspelt key, and the chart's helm-unittest suites. The first run builds the tools into a cache
 * folder (a few minutes); later runs take seconds.
 */
class HelmChartTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void shouldPassEveryChartCheck() throws IOException, InterruptedException {
        // given
        Path script = ROOT.resolve("helm/check");
        assertThat(script).as("the chart check script").isRegularFile();
        Path log = Files.createTempFile("helm-check", ".log");
        try {
            // when
            Process process = new ProcessBuilder("bash", script.toString())
                    .directory(ROOT.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            boolean finished = process.waitFor(20, TimeUnit.MINUTES);
            if (!finished) {
                process.destroyForcibly().waitFor();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            System.out.println(output);

            // then
            assertThat(finished).as("helm/check finished within 20 minutes; its output:%n%s", output).isTrue();
            assertThat(process.exitValue()).as("helm/check's exit code; its output:%n%s", output).isZero();
            assertThat(output).contains("Summary: ", "Invalid: 0", "Test Suites: ", "helm/check: all chart checks passed");
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
