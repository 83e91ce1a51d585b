package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks that fail in the ways Java fails (a host that does not resolve, a timeout that interrupts a task, a Kafka
 * client refusing its settings, an expression that throws) and requests the API refuses: no answer, the execution's
 * errors and its logs included, shows a stack trace or an exception's class name.
 */
class NoInternalsEndToEndTest {
    private static final List<String> INTERNALS = List.of("Exception", "at io.", "at org.", "at java.", "\tat ",
            "java.lang", "io.millrace", "org.apache", "Caused by", "<html");
    private static final String FLOWS = """
            id: unresolved
            namespace: company.team
            tasks:
              - {id: call, type: io.kestra.plugin.core.http.Request, uri: "http://nohost.invalid/"}
            ---
            id: slow
            namespace: company.team
            tasks:
              - {id: nap, type: io.kestra.plugin.core.flow.Sleep, duration: PT30S, timeout: PT0.3S}
            ---
            id: misconfigured
            namespace: company.team
            tasks:
              - id: send
                type: io.kestra.plugin.kafka.Produce
                properties: {bootstrap.servers: "localhost:1", linger.ms: soon}
                topic: anywhere
                from: {value: v}
            ---
            id: throws
            namespace: company.team
            tasks:
              - {id: divide, type: io.kestra.plugin.core.debug.Return, format: "{{ 1 / 0 }}"}
            """;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path stateDir;

    @Test
    void shouldAnswerFailedTasksTheirLogsAndBadRequestsWithoutInternals() throws Exception {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("internals", stateDir, "port", "0"),
                null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            for (String flow : FLOWS.split("---\n")) {
                assertThat(send("POST", api + "/flows", "application/x-yaml", flow).statusCode()).isEqualTo(200);
            }
            var answers = new LinkedHashMap<String, HttpResponse<String>>();

            // when: each flow runs and fails, and its execution and logs are read
            for (String flowId : List.of("unresolved", "slow", "misconfigured", "throws")) {
                var ended = send("POST", api + "/executions/company.team/" + flowId + "?wait=true", "application/json",
                        "{}");
                assertThat(ended.statusCode()).as(ended.body()).isEqualTo(200);
                assertThat(ended.body()).as(flowId).contains("\"FAILED\"");
                String id = io.millrace.serdes.Json.MAPPER.readTree(ended.body()).path("id").asText();
                answers.put(flowId + " ended", ended);
                answers.put(flowId + " read", send("GET", api + "/executions/" + id, null, null));
                answers.put(flowId + " logs", awaitLogs(api + "/logs/" + id));
                answers.put(flowId + " log text", send("GET", api + "/logs/" + id + "/download", null, null));
            }
            // and: requests the API refuses
            answers.put("malformed JSON", send("POST", api + "/executions/company.team/slow", "application/json", "{"));
            answers.put("malformed YAML", send("POST", api + "/flows", "application/x-yaml", "id: [unclosed\n  - : :"));
            answers.put("no content type", send("POST", api + "/flows", null, "id: x"));
            answers.put("unknown route", send("GET", api + "/nothing", null, null));
            answers.put("bad query", send("GET", api + "/executions/search?size=lots", null, null));
            answers.put("wrong webhook key", send("POST", api + "/executions/webhook/company.team/slow/"
                    + "0123456789abcdef0123", null, "x"));

            // then
            answers.forEach((what, answer) -> {
                for (String internal : INTERNALS) {
                    assertThat(answer.body()).as(what + " must not show " + internal).doesNotContain(internal);
                }
            });
            assertThat(answers.get("slow logs").body()).contains("Timeout after PT0.3S")
                    .containsPattern("under error id [0-9a-z]+");
            assertThat(answers.get("unresolved read").body()).contains("nohost.invalid");
        }
    }

    /** The execution's log lines, once its failure's line is there (workers send them apart from the result). */
    private static HttpResponse<String> awaitLogs(String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> logs = send("GET", url, null, null);
        while (!logs.body().contains("\"ERROR\"") && System.nanoTime() < deadline) {
            Thread.sleep(200);
            logs = send("GET", url, null, null);
        }
        assertThat(logs.body()).as("the failure's log line").contains("\"ERROR\"");
        return logs;
    }

    private static HttpResponse<String> send(String method, String url, String contentType, String body)
            throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(90))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
