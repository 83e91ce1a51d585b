package io.millrace.helm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chart checks in the build. helm/check: helm lint --strict, helm template with the default and
 * the production values, kubeconform against the Kubernetes 1.33 schemas, the values schema refusing
 * a misspelt key, and the chart's helm-unittest suites; its first run builds the tools into a cache
 * folder (a few minutes), later runs take seconds. Then helm/roles-check: every role the chart deploys,
 * started as its own process from app/target/millrace.jar with the chart's args, env and millrace.yaml
 * against a real broker, answering /health and /metrics, the token, the README's quickstart and a Flow
 * trigger (about half a minute).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmChartTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    @Order(1)
    void shouldPassEveryChartCheck() throws IOException, InterruptedException {
        // when
        Result result = run("helm/check", Duration.ofMinutes(20));

        // then
        assertThat(result.output()).contains("Summary: ", "Invalid: 0", "Test Suites: ", "helm/check: all chart checks passed");
    }

    @Test
    @Order(2)
    void shouldRunEveryRoleWithTheChartsConfiguration() throws IOException, InterruptedException {
        // given
        assertThat(ROOT.resolve("app/target/millrace.jar")).as("the jar the roles run (the app module builds it)").isRegularFile();

        // when
        Result result = run("helm/roles-check", Duration.ofMinutes(8));

        // then
        assertThat(result.output())
                .contains("roles-check: PASS")
                .doesNotContain("  FAIL  ")
                .contains("millrace-executor-executor (StatefulSet millrace-executor-0): /health on its management port answers 200",
                        "millrace-worker-default-worker (Deployment millrace-worker-default-roles-check): /health",
                        "millrace-gateway-gateway (Deployment millrace-gateway-roles-check): /health",
                        "millrace-triggers-triggers (Deployment millrace-triggers-roles-check): /health",
                        "gateway: GET /api/v1/flows without a token answers 401",
                        "quickstart: POST /executions/company.team/json-transform?wait=true ends SUCCESS",
                        "triggers: a Flow trigger on json-transform's SUCCESS started after-json-transform");
    }

    private record Result(String output) {}

    /** Runs a script of the repository, and asserts that it finished in time and exited 0. */
    private static Result run(String script, Duration timeout) throws IOException, InterruptedException {
        Path path = ROOT.resolve(script);
        assertThat(path).as("the script " + script).isRegularFile();
        Path log = Files.createTempFile(path.getFileName().toString(), ".log");
        try {
            Process process = new ProcessBuilder("bash", path.toString())
                    .directory(ROOT.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            boolean finished = process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS);
            if (!finished) {
                // SIGTERM first: roles-check stops the processes it started on it
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            System.out.println(output);
            assertThat(finished).as("%s finished within %s; its output:%n%s", script, timeout, output).isTrue();
            assertThat(process.exitValue()).as("%s's exit code; its output:%n%s", script, output).isZero();
            return new Result(output);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
