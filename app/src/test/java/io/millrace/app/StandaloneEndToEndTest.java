package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.DeadLetterRecord;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The user's path: post a flow over REST, run it with ?wait=true, read it back, also after a restart. */
class StandaloneEndToEndTest {
    static final String JSON_TRANSFORM = """
            id: json-transform
            namespace: company.team
            inputs:
              - id: order
                type: JSON
            tasks:
              - id: transform
                type: io.kestra.plugin.transform.jsonata.TransformValue
                from: "{{ inputs.order }}"
                expression: |
                  { "order_id": order_id, "customer_name": first_name & ' ' & last_name,
                    "address": address.city & ', ' & address.country,
                    "total_price": $sum(items.(quantity * price_per_unit)) }
              - id: hello
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  log: "{{ outputs.transform.value }}"
            """;
    static final String ORDER = """
            {"inputs": {"order": {"order_id": 42, "first_name": "Ada", "last_name": "Lovelace",
              "address": {"city": "London", "country": "UK"},
              "items": [{"quantity": 2, "price_per_unit": 10.5}, {"quantity": 1, "price_per_unit": 4}]}}}
            """;

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    @Test
    void shouldRunTheJsonTransformFlowOverRestAndKeepItAcrossARestart() throws Exception {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("e2e", stateDir, "port", "0"), null);
        String executionId;
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            JsonNode flow = send("POST", api + "/flows", JSON_TRANSFORM, 200);
            assertThat(flow.path("revision").asInt()).isEqualTo(1);

            // when
            JsonNode execution = null;
            for (int i = 0; i < 10; i++) {
                execution = send("POST", api + "/executions/company.team/json-transform?wait=true", ORDER, 200);
                assertThat(execution.at("/state/current").asText()).isEqualTo("SUCCESS");
            }

            // then
            JsonNode log = Json.MAPPER.readTree(execution.at("/taskRunList/1/outputs/values/log").asText());
            assertThat(log.path("order_id").asInt()).isEqualTo(42);
            assertThat(log.path("customer_name").asText()).isEqualTo("Ada Lovelace");
            assertThat(log.path("address").asText()).isEqualTo("London, UK");
            assertThat(log.path("total_price").asDouble()).isEqualTo(25.0);
            assertThat(execution.path("taskRunList")).hasSize(2);
            executionId = execution.path("id").asText();

            // and: by default each of the executor's stream threads owns one partition of the commands, so that a
            // thread's transaction holds the records of one task (docs/TUNING.md, partitions per transaction)
            assertThat(commandPartitionsByMember(config)).hasSize(config.streamThreads()).allSatisfy(
                    (member, partitions) -> assertThat(partitions).as(member).hasSize(1));

            // and when: a record that does not decode reaches the commands topic
            DeadLetterRecord letter = deadLetterOfGarbage(config);

            // then: it is dead-lettered as it was, and the engine goes on
            assertThat(letter.getReason()).contains("Undecodable");
            assertThat(letter.getPayload().array()).containsExactly(1, 2, 3);
            assertThat(send("POST", api + "/executions/company.team/json-transform?wait=true", ORDER, 200)
                    .at("/state/current").asText()).isEqualTo("SUCCESS");
        }

        // when: the engine restarts on the same state
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            JsonNode again = awaitExecution(api + "/executions/" + executionId);

            // then
            assertThat(again.at("/state/current").asText()).isEqualTo("SUCCESS");
            assertThat(send("GET", api + "/flows/company.team/json-transform", null, 200).path("revision").asInt()).isEqualTo(1);
        }
    }

    @Test
    void shouldForgetAFinishedExecutionOnceItsRetentionEnds() throws Exception {
        // given: an engine that keeps finished executions for 10 s
        MillraceConfig config = ConfigLoader.load(Map.of(),
                TestEngines.settings("ret", stateDir, "port", "0", "retention", "PT10S"), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            send("POST", api + "/flows", JSON_TRANSFORM, 200);
            String id = send("POST", api + "/executions/company.team/json-transform?wait=true", ORDER, 200).path("id").asText();
            assertThat(send("GET", api + "/executions/" + id, null, 200).at("/state/current").asText()).isEqualTo("SUCCESS");

            // when
            int status = awaitStatus(api + "/executions/" + id, 404, Duration.ofSeconds(60));

            // then: the gateway has dropped it, and the engine still runs the flow
            assertThat(status).isEqualTo(404);
            assertThat(send("POST", api + "/executions/company.team/json-transform?wait=true", ORDER, 200)
                    .at("/state/current").asText()).isEqualTo("SUCCESS");
        }
    }

    /** Polls the URL until it answers {@code wanted} or the time runs out; answers the last status. */
    private int awaitStatus(String url, int wanted, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        int status;
        do {
            status = HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
            if (status == wanted) {
                return status;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        return status;
    }

    /** The partitions of the commands topic that each member of the executor's group (a stream thread) is assigned. */
    private static Map<String, List<Integer>> commandPartitionsByMember(MillraceConfig config) throws Exception {
        String commands = Topics.of(config).commands().name();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()))) {
            String group = Topics.executorApplicationId(config);
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().members().stream()
                    .collect(Collectors.toMap(MemberDescription::consumerId, member -> member.assignment()
                            .topicPartitions().stream().filter(p -> p.topic().equals(commands))
                            .map(TopicPartition::partition).toList()));
        }
    }

    private static DeadLetterRecord deadLetterOfGarbage(MillraceConfig config) throws Exception {
        Topics topics = Topics.of(config);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", config.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer());
             var consumer = new KafkaConsumer<>(Map.<String, Object>of("bootstrap.servers", config.bootstrapServers(),
                     "isolation.level", "read_committed"), new StringDeserializer(), topics.deadLetters().valueSerde().deserializer())) {
            producer.send(new ProducerRecord<>(topics.commands().name(), "garbage", new byte[] {1, 2, 3})).get();
            var partitions = consumer.partitionsFor(topics.deadLetters().name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    return record.value();
                }
            }
        }
        throw new AssertionError("Expected a dead letter within 30 s, but none came");
    }

    private JsonNode awaitExecution(String url) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        HttpResponse<String> response;
        do {
            response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                return Json.MAPPER.readTree(response.body());
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("Expected " + url + " to answer 200, but it answered " + response.statusCode() + ": " + response.body());
    }

    /** Sends the request and answers its JSON body, once its status is {@code expectedStatus}. */
    static JsonNode send(String method, String url, String body, int expectedStatus) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", url.endsWith("/flows") ? "application/x-yaml" : "application/json")
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s %s answered %s", method, url, response.body()).isEqualTo(expectedStatus);
        return Json.MAPPER.readTree(response.body());
    }
}
