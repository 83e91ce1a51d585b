package io.millrace.app;

import static io.millrace.app.StandaloneEndToEndTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/millrace flows validate|deploy DIR} against a running engine, as a pipeline runs them. */
class FlowsCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldValidateAFolderWithTheApiAndDeployNothingUntilEveryFlowIsValid() throws Exception {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("flowscli", dir.resolve("state"),
                "port", "0"), null);
        Path flows = Files.createDirectories(dir.resolve("flows/team"));
        Files.writeString(flows.resolve("hello.yaml"), """
                id: hello
                namespace: company.cli
                tasks:
                  - {id: say, type: io.kestra.plugin.core.log.Log, message: hello}
                """);
        Path broken = Files.writeString(flows.resolve("broken.yml"), """
                id: broken
                namespace: company.cli
                tasks:
                  - {id: say, type: io.kestra.plugin.core.log.Log}
                """);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";

            // when: one flow is invalid
            Run validate = run("flows", "validate", dir.resolve("flows").toString(), "--api", api);
            Run deploy = run("flows", "deploy", dir.resolve("flows").toString(), "--api", api);

            // then: both exit 1 naming the file and the problem, and nothing was deployed
            assertThat(validate.code()).isEqualTo(1);
            assertThat(validate.out()).contains(broken + ": invalid")
                    .contains("Missing required property 'message'").contains("hello.yaml: valid (company.cli/hello)");
            assertThat(deploy.code()).isEqualTo(1);
            assertThat(deploy.out()).contains("Nothing deployed");
            send("GET", api + "/flows/company.cli/hello", null, 404);

            // when: it is fixed
            Files.writeString(broken, Files.readString(broken).replace("Log}", "Log, message: fixed}"));
            Run fixed = run("flows", "deploy", dir.resolve("flows").toString(), "--api", api);

            // then: every flow is deployed
            assertThat(fixed.code()).as(fixed.out()).isZero();
            assertThat(fixed.out()).contains("deployed company.cli/broken revision 1")
                    .contains("deployed company.cli/hello revision 1");
            assertThat(send("GET", api + "/flows/company.cli/broken", null, 200).path("revision").asInt()).isEqualTo(1);
        }
        assertThat(run("flows", "validate", dir.resolve("none").toString()).code()).isNotZero();
    }

    private record Run(int code, String out) {
    }

    private static Run run(String... args) {
        var out = new StringWriter();
        int code = Millrace.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(out, true))
                .execute(args);
        return new Run(code, out.toString());
    }
}
