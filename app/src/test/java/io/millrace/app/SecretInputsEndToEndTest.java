package io.millrace.app;

import static io.millrace.app.SecretsEndToEndTest.awaitLogs;
import static io.millrace.app.SecretsEndToEndTest.bytes;
import static io.millrace.app.SecretsEndToEndTest.engineTopics;
import static io.millrace.app.SecretsEndToEndTest.jsonEscaped;
import static io.millrace.app.SecretsEndToEndTest.recordsHolding;
import static io.millrace.app.SecretsEndToEndTest.run;
import static io.millrace.app.SecretsEndToEndTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow with a SECRET input, started through the API and through its webhook (called with Authorization, Cookie and
 * Proxy-Authorization headers), returns, logs, outputs and fails with the input and the call's headers: its tasks get
 * the input's value, and neither that value nor a dropped header's shows anywhere: not in any API answer (the
 * executions, a search, the logs), nor in any record of any of the engine's topics.
 */
class SecretInputsEndToEndTest {
    /** A quote, so that its JSON-escaped form differs; never written in a flow. */
    private static final String VALUE = "c0rrect-h0rse\"battery-st4ple";
    private static final String AUTHORIZATION = "Bearer aut4-tok3n-7f3a9c1e";
    private static final String COOKIE = "session=c00kie-5e55ion-b2d4";
    private static final String PROXY = "Basic pr0xy-cr3ds-91aa";
    private static final List<String> NEVER = List.of(VALUE, "aut4-tok3n-7f3a9c1e", "c00kie-5e55ion-b2d4",
            "pr0xy-cr3ds-91aa");
    private static final String FLOW = """
            id: secret-inputs
            namespace: company.team
            inputs:
              - id: password
                type: SECRET
            tasks:
              - id: check
                type: io.kestra.plugin.core.debug.Return
                format: "{{ inputs.password | length }}:{{ inputs.password == secret('expected') }}"
              - id: say
                type: io.kestra.plugin.core.log.Log
                message: "password [{{ inputs.password }}] {{ {'p': inputs.password} | toJson }} {{ trigger ?? {} }}"
              - id: leak
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  password: "{{ inputs.password }}"
                  trigger: "{{ trigger ?? {} }}"
              - id: boom
                type: io.kestra.plugin.core.execution.Fail
                errorMessage: "refused with {{ inputs.password }} and {{ trigger ?? {} }}"
            triggers:
              - id: hook
                type: io.kestra.plugin.core.trigger.Webhook
                key: a-long-webhook-key-for-secret-inputs
                wait: true
                inputs:
                  password: "{{ trigger.body.password }}"
            """;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;
    @TempDir
    Path secretsDir;

    @Test
    void shouldGiveTheSecretInputToItsTasksAndPrintItAndTheDroppedHeadersNowhere() throws Exception {
        // given
        Files.writeString(secretsDir.resolve("expected"), VALUE);
        String key = Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes());
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("secinputs", stateDir, "port", "0",
                "secrets-dir", secretsDir.toString(), "encryption-key", key), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            assertThat(send("POST", api + "/flows", FLOW).statusCode()).isEqualTo(200);
            String body = Json.MAPPER.writeValueAsString(Map.of("password", VALUE));

            // when
            String started = send("POST", api + "/executions/company.team/secret-inputs?wait=true",
                    "{\"inputs\": " + body + "}").body();
            HttpResponse<String> hooked = HTTP.send(HttpRequest.newBuilder(URI.create(api
                            + "/executions/webhook/company.team/secret-inputs/a-long-webhook-key-for-secret-inputs"))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json")
                    .header("Authorization", AUTHORIZATION).header("Cookie", COOKIE)
                    .header("Proxy-Authorization", PROXY).header("X-Trace", "kept-header").build(),
                    HttpResponse.BodyHandlers.ofString());

            // then: both runs' tasks had the value, which their outputs, logs and error show masked
            var answers = new ArrayList<String>(List.of(started, hooked.body()));
            for (String answer : List.of(started, hooked.body())) {
                JsonNode execution = Json.MAPPER.readTree(answer);
                assertThat(execution.at("/state/current").asText()).as(answer).isEqualTo("FAILED");
                assertThat(execution.at("/inputs/password").asText()).isEqualTo("******");
                assertThat(run(execution, "check").at("/outputs/value").asText()).isEqualTo(VALUE.length() + ":true");
                assertThat(run(execution, "leak").at("/outputs/values/password").asText()).isEqualTo("******");
                assertThat(run(execution, "boom").at("/attempts/0/error").asText()).contains("refused with ******");
                String id = execution.path("id").asText();
                String logs = awaitLogs(api + "/logs/" + id);
                assertThat(logs).contains("password [******] {\\\"p\\\":\\\"******\\\"}");
                answers.add(logs);
                answers.add(send("GET", api + "/executions/" + id, null).body());
            }
            JsonNode hook = Json.MAPPER.readTree(hooked.body());
            assertThat(hooked.statusCode()).isEqualTo(500);
            assertThat(hook.at("/trigger/variables/headers").toString()).contains("kept-header")
                    .doesNotContainIgnoringCase("authorization").doesNotContainIgnoringCase("cookie");
            assertThat(hook.at("/trigger/variables/body/password").asText()).isEqualTo("******");
            answers.add(send("GET", api + "/executions/search?namespace=company.team", null).body());
            assertThat(answers.getLast()).contains(hook.path("id").asText());

            // and then: no answer holds the value, a dropped header's value or the input's ciphertext
            for (String answer : answers) {
                for (String never : NEVER) {
                    assertThat(answer).doesNotContain(never).doesNotContain(jsonEscaped(never));
                }
                assertThat(answer).doesNotContain("millrace:encrypted:");
            }
            // and no record of any topic holds the value or a dropped header's; the tasks topic holds the ciphertext
            List<String> topics = engineTopics(config);
            String tasks = config.topicPrefix() + "tasks.default";
            assertThat(topics).contains(tasks, config.topicPrefix() + "commands", config.topicPrefix() + "logs")
                    .anyMatch(name -> name.endsWith("-changelog"));
            assertThat(recordsHolding(tasks, config, bytes("millrace:encrypted:v1:"))).isNotEmpty();
            var needles = new ArrayList<byte[]>(List.of(bytes(base64(VALUE))));
            NEVER.forEach(never -> needles.addAll(List.of(bytes(never), bytes(jsonEscaped(never)))));
            for (String topic : topics) {
                assertThat(recordsHolding(topic, config, needles.toArray(byte[][]::new))).as(topic).isEmpty();
            }
        }
    }

    private static String base64(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }
}
