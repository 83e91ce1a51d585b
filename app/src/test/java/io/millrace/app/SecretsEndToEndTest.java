package io.millrace.app;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow that reads a secret from secrets-dir, returns, logs, outputs and fails with it: its tasks get the value, and
 * the value shows nowhere: not in the execution's or its logs' JSON, nor in any record of any of the engine's topics.
 */
class SecretsEndToEndTest {
    /** A quote, so that its JSON-escaped form differs; never written in the flow, only in the secret's file. */
    private static final String VALUE = "Tr0ub4dor&3\"zq-9x";
    private static final String FLOW = """
            id: uses-secret
            namespace: company.team
            tasks:
              - id: length
                type: io.kestra.plugin.core.debug.Return
                format: "{{ secret('db_password') | length }}:{{ secret('DB_PASSWORD') | slice(0, 4) }}"
              - id: say
                type: io.kestra.plugin.core.log.Log
                message: "password [{{ secret('db_password') }}] as JSON {{ {'p': secret('db_password')} | toJson }}"
              - id: leak
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  password: "{{ secret('db_password') }}"
                  nested: ["x {{ secret('db_password') }} y"]
              - id: boom
                type: io.kestra.plugin.core.execution.Fail
                errorMessage: "refused with {{ secret('db_password') }}"
            """;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;
    @TempDir
    Path secretsDir;

    @Test
    void shouldGiveTheSecretToItsTasksAndPrintItNowhere() throws Exception {
        // given
        Files.writeString(secretsDir.resolve("db_password"), VALUE);
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("secrets", stateDir, "port", "0",
                "secrets-dir", secretsDir.toString()), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            assertThat(send("POST", api + "/flows", FLOW).statusCode()).isEqualTo(200);

            // when
            String body = send("POST", api + "/executions/company.team/uses-secret?wait=true", "{}").body();

            // then: the tasks had the value, which their outputs, logs and error show masked
            JsonNode execution = Json.MAPPER.readTree(body);
            assertThat(execution.at("/state/current").asText()).isEqualTo("FAILED");
            assertThat(run(execution, "length").at("/outputs/value").asText())
                    .isEqualTo(VALUE.length() + ":" + VALUE.substring(0, 4));
            assertThat(run(execution, "leak").at("/outputs/values/password").asText()).isEqualTo("******");
            assertThat(run(execution, "leak").at("/outputs/values/nested/0").asText()).isEqualTo("x ****** y");
            assertThat(run(execution, "boom").at("/attempts/0/error").asText()).contains("refused with ******");
            String logs = awaitLogs(api + "/logs/" + execution.path("id").asText());
            assertThat(logs).contains("password [******] as JSON {\\\"p\\\":\\\"******\\\"}")
                    .contains("refused with ******");

            // and then: the value is nowhere
            String executionAgain = send("GET", api + "/executions/" + execution.path("id").asText(), null).body();
            for (String text : List.of(body, executionAgain, logs)) {
                assertThat(text).doesNotContain(VALUE).doesNotContain(jsonEscaped(VALUE));
            }
            List<String> topics = engineTopics(config);
            String tasks = config.topicPrefix() + "tasks.default";
            assertThat(topics).contains(tasks, config.topicPrefix() + "results", config.topicPrefix() + "logs",
                    config.topicPrefix() + "executions").anyMatch(name -> name.endsWith("-changelog"));
            assertThat(recordsHolding(tasks, config, bytes("refused with {{ secret('db_password') }}")))
                    .as("the task record carries the expression as written").isNotEmpty();
            for (String topic : topics) {
                assertThat(recordsHolding(topic, config, bytes(VALUE))).as(topic).isEmpty();
                assertThat(recordsHolding(topic, config, bytes(jsonEscaped(VALUE)))).as(topic).isEmpty();
            }
        }
    }

    static JsonNode run(JsonNode execution, String taskId) {
        for (JsonNode run : execution.path("taskRunList")) {
            if (run.path("taskId").asText().equals(taskId)) {
                return run;
            }
        }
        throw new AssertionError("no run of " + taskId + " in " + execution);
    }

    static String jsonEscaped(String value) {
        String quoted = Json.MAPPER.valueToTree(value).toString();
        return quoted.substring(1, quoted.length() - 1);
    }

    /** The execution's log lines once the failure's line is there (logs arrive apart from the execution). */
    /** The logs at {@code url} once they hold the flows' log line and its refused task's, or after 30 s. */
    static String awaitLogs(String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String logs;
        do {
            logs = send("GET", url, null).body();
            if (logs.contains("refused with") && logs.contains("password [")) {
                return logs;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return logs;
    }

    /** Every topic under the engine's prefix, Kafka Streams' changelogs and repartition topics included. */
    static List<String> engineTopics(MillraceConfig config) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
            return new ArrayList<>(new TreeSet<>(names.stream().filter(n -> n.startsWith(config.topicPrefix()))
                    .toList()));
        }
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads the whole topic from its start, aborted transactions' records included, and searches every byte of their
     * keys, values and headers: the offsets of the records that hold one of the {@code needles}.
     */
    static List<Long> recordsHolding(String topic, MillraceConfig config, byte[]... needles) {
        List<Long> holding = new ArrayList<>();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                assertThat(System.nanoTime()).as("reading %s to its end", topic).isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    for (byte[] needle : needles) {
                        boolean inHeaders = Arrays.stream(record.headers().toArray()).map(Header::value)
                                .anyMatch(v -> contains(v, needle));
                        if (contains(record.key(), needle) || contains(record.value(), needle) || inHeaders) {
                            holding.add(record.offset());
                            break;
                        }
                    }
                }
            }
        }
        return holding;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        if (haystack == null) {
            return false;
        }
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    static HttpResponse<String> send(String method, String url, String body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", url.endsWith("/flows") ? "application/x-yaml" : "application/json")
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
