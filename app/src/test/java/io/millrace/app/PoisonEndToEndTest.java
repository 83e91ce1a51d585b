package io.millrace.app;

import static io.millrace.app.StandaloneEndToEndTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.bench.Poison;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Topics;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a flow author or a producer can send that once stopped the engine for everyone, on the real broker: each poison
 * execution fails alone, naming the limit it reached, poison records are dead-lettered, and the other executions run,
 * before and after a restart.
 */
class PoisonEndToEndTest {
    private static final String OK = """
            id: ok
            namespace: company.team
            tasks:
              - id: hello
                type: io.kestra.plugin.core.debug.Return
                format: "hello"
            """;

    @TempDir
    Path stateDir;

    @Test
    void shouldFailEachPoisonExecutionAloneAndRunTheOthersAlsoAfterARestart() throws Exception {
        // given
        // the render budgets are long enough for a loaded machine to build the 1.6 MB output, so its size decides
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("poison", stateDir, "port", "0",
                "expression-max-time", "PT10S", "executor-expression-max-time", "PT0.5S"), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            send("POST", api + "/flows", OK, 200);
            send("POST", api + "/flows", Poison.BIG_OUTPUTS.source(), 200);
            send("POST", api + "/flows", Poison.LOOPING_RUN_IF.source(), 200);
            send("POST", api + "/flows", Poison.MILLION_VALUES.source(), 200);
            send("POST", api + "/flows", Poison.CATASTROPHIC_REGEX.source(), 200);
            send("POST", api + "/flows", Poison.ENDLESS_JSONATA.source(), 200);
            send("POST", api + "/flows", Poison.LONG_SLEEP.source(), 200);
            JsonNode deep = send("POST", api + "/flows", Poison.nested(200), 400);

            // when: records that do not decode reach every topic the executor reads
            Poison.writeRecords(config.bootstrapServers(), Topics.of(config), config.workerGroup());
            JsonNode big = send("POST", api + "/executions/company.team/big-outputs?wait=true&timeout=PT60S", "{}", 200);

            // then: the poison execution failed, naming the limit, and the others run
            assertThat(big.at("/state/current").asText()).isEqualTo("FAILED");
            assertThat(big.path("error").asText()).startsWith("The execution's event ExecutionCompleted would take 1600")
                    .endsWith(" bytes, more than the 1000000 a record may (max-record-bytes)");
            JsonNode looping = send("POST", api + "/executions/company.team/looping-run-if?wait=true&timeout=PT60S", "{}", 200);
            assertThat(looping.at("/state/current").asText()).isEqualTo("FAILED");
            assertThat(looping.at("/taskRunList/0/error").asText())
                    .containsPattern("exceeds the render limit (executor-expression-max-time|expression-max-steps)");
            assertThat(deep.path("details").toString()).contains("nest");
            assertFailsNaming(api, "million-values", "expression-max-collection-size");
            assertFailsNaming(api, "catastrophic-regex", "exceeds the render limit executor-expression-max-time");
            assertFailsNaming(api, "endless-jsonata", "JSONata");
            assertFailsNaming(api, "long-sleep", "Timeout after PT3S");
            assertOkRuns(api);
        }

        // when: the engine restarts on the same state
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";

            // then: nothing resumes spinning, and new executions run
            assertOkRuns(api);
        }
    }

    /** Starts the flow, waits for its end, and checks it failed with an error that names the limit. */
    private static void assertFailsNaming(String api, String flowId, String limit) throws Exception {
        JsonNode execution = send("POST", api + "/executions/company.team/" + flowId + "?wait=true&timeout=PT60S", "{}", 200);
        assertThat(execution.at("/state/current").asText()).as(flowId).isEqualTo("FAILED");
        assertThat(execution.toString()).as(flowId).contains(limit);
    }

    private static void assertOkRuns(String api) throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send("POST", api + "/executions/company.team/ok?wait=true&timeout=PT60S", "{}", 200)
                    .at("/state/current").asText()).isEqualTo("SUCCESS");
        }
    }
}
