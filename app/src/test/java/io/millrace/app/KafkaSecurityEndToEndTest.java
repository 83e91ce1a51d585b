package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.executor.Executor;
import io.millrace.gateway.Gateway;
import io.millrace.serdes.Json;
import io.millrace.triggers.Triggers;
import io.millrace.worker.Worker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every role, each started alone as the chart runs them (the gateway with a bearer token), against a broker whose only
 * client listener requires SASL (PLAIN), and against one whose only listener is TLS: the {@code kafka.*} security settings must reach every client of every role (Kafka
 * Streams and their admin clients, consumers, producers, the admin clients that create topics) for a flow to run, its
 * log lines to be read back and a Flow trigger to start another flow.
 */
class KafkaSecurityEndToEndTest {
    private static final String TOKEN = "end-to-end-token";
    private static final EmbeddedKafkaBroker.SaslPlain USER = new EmbeddedKafkaBroker.SaslPlain("millrace", "s3cret-pw");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    static Path dir;

    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.startSecured(dir.resolve("kafka"), 0, USER);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldRunAFlowThroughEveryRoleOverSasl() throws Exception {
        runEveryRole(config(broker, USER));
    }

    @Test
    void shouldRunAFlowThroughEveryRoleOverTls() throws Exception {
        // given: a broker whose only listener is TLS, with a key and certificate made for this test
        String password = "tls-pw-" + System.nanoTime();
        var tls = new EmbeddedKafkaBroker.Tls(dir.resolve("broker.p12"), dir.resolve("trust.p12"), password);
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-keystore", tls.keystore().toString(),
                "-storetype", "PKCS12", "-storepass", password, "-keypass", password);
        keytool("-exportcert", "-alias", "broker", "-keystore", tls.keystore().toString(), "-storepass", password,
                "-rfc", "-file", dir.resolve("broker.pem").toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", dir.resolve("broker.pem").toString(),
                "-keystore", tls.truststore().toString(), "-storetype", "PKCS12", "-storepass", password);
        try (var tlsBroker = EmbeddedKafkaBroker.startSecured(dir.resolve("kafka-tls"), 0, tls)) {
            // then
            runEveryRole(config(tlsBroker, tls));
        }
    }

    /** Starts each role alone, runs a flow, reads its logs, and waits for the flow its end triggers. */
    private static void runEveryRole(MillraceConfig config) throws Exception {
        try (Executor executor = Executor.start(config, new SimpleMeterRegistry())) {
            assertThat(executor.awaitRunning(Duration.ofSeconds(60))).as("executor running over SASL").isTrue();
            try (Worker worker = Worker.start(config);
                    Gateway gateway = Gateway.start(config);
                    Triggers triggers = Triggers.start(config, new SimpleMeterRegistry())) {
                assertThat(gateway.awaitReady(Duration.ofSeconds(60))).as("gateway ready over SASL").isTrue();
                assertThat(triggers.awaitReady(Duration.ofSeconds(60))).as("triggers ready over SASL").isTrue();
                String api = "http://localhost:" + gateway.port() + "/api/v1";
                send("POST", api + "/flows", """
                        id: secured
                        namespace: company.team
                        tasks:
                          - {id: log, type: io.kestra.plugin.core.log.Log, message: "over SASL"}
                          - {id: answer, type: io.kestra.plugin.core.debug.Return, format: "42"}
                        """, 200);
                send("POST", api + "/flows", """
                        id: after
                        namespace: company.team
                        triggers:
                          - id: upstream
                            type: io.kestra.plugin.core.trigger.Flow
                            states: [SUCCESS]
                            conditions:
                              - {type: io.kestra.plugin.core.condition.ExecutionFlow, namespace: company.team, flowId: secured}
                        tasks:
                          - {id: report, type: io.kestra.plugin.core.debug.Return, format: "{{ trigger.executionId }}"}
                        """, 200);

                // when
                JsonNode execution = send("POST", api + "/executions/company.team/secured?wait=true", "{}", 200);

                // then: the executor, the worker, the gateway's read model ...
                String id = execution.path("id").asText();
                assertThat(execution.at("/state/current").asText()).isEqualTo("SUCCESS");
                assertThat(execution.at("/taskRunList/1/outputs/value").asText()).isEqualTo("42");
                // ... the worker's log producer and the gateway's logs store ...
                JsonNode logs = poll(() -> send("GET", api + "/logs/" + id, null, 200), JsonNode::isEmpty);
                assertThat(logs.findValuesAsText("message")).contains("over SASL");
                // ... and the triggers role, which started the downstream flow
                JsonNode found = poll(() -> send("GET", api + "/executions/search?flowId=after&state=SUCCESS", null, 200),
                        page -> page.path("total").asInt() == 0);
                assertThat(found.at("/results/0/taskRunList/0/outputs/value").asText()).isEqualTo(id);
            }
        }
    }

    @Test
    void shouldStopWithAClearErrorOnAWrongPassword() {
        // given
        MillraceConfig config = config(broker, new EmbeddedKafkaBroker.SaslPlain(USER.username(), "wrong"));
        long started = System.nanoTime();

        // then: every role stops at its start, saying why
        assertThatThrownBy(() -> Executor.start(config, new SimpleMeterRegistry())).hasMessageContaining("Authentication failed");
        assertThatThrownBy(() -> Worker.start(config)).hasMessageContaining("Authentication failed");
        assertThatThrownBy(() -> Gateway.start(config)).hasMessageContaining("Authentication failed");
        assertThatThrownBy(() -> Triggers.start(config, new SimpleMeterRegistry())).hasMessageContaining("Authentication failed");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(40));
    }

    /**
     * An engine on {@code kafka}, its client settings passed through as a user (and the Helm chart) sets them: the
     * secrets as {@code MILLRACE_KAFKA_*} variables, the rest as {@code kafka.*} settings.
     */
    private static MillraceConfig config(EmbeddedKafkaBroker kafka, EmbeddedKafkaBroker.SecuredListener listener) {
        var settings = new HashMap<>(TestEngines.settings("secured", dir.resolve("state"), "port", "0",
                "bootstrap-servers", kafka.bootstrapServers(), "partitions", "2", "auth-tokens", TOKEN));
        var environment = new HashMap<String, String>();
        listener.clientSettings().forEach((key, value) -> {
            if (key.equals("sasl.jaas.config") || key.endsWith(".password")) {
                environment.put("MILLRACE_KAFKA_" + key.toUpperCase(Locale.ROOT).replace('.', '_'), value);
            } else {
                settings.put("kafka." + key, value);
            }
        });
        assertThat(environment).isNotEmpty();
        return ConfigLoader.load(environment, settings, null);
    }

    private static void keytool(String... arguments) throws Exception {
        var command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as("keytool %s: %s", arguments[0], output).isZero();
    }


    private interface Call {
        JsonNode get() throws Exception;
    }

    /** Calls until the answer is no longer {@code notYet}, for at most 60 s. */
    private static JsonNode poll(Call call, Predicate<JsonNode> notYet) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode answer = call.get();
        while (notYet.test(answer) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            answer = call.get();
        }
        return answer;
    }

    private static JsonNode send(String method, String url, String body, int expectedStatus) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", url.endsWith("/flows") ? "application/x-yaml" : "application/json")
                .timeout(Duration.ofSeconds(90)) // longer than the gateway's ?wait (wait-timeout, 60 s)
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s %s answered %s", method, url, response.body()).isEqualTo(expectedStatus);
        return Json.MAPPER.readTree(response.body());
    }
}
