package io.millrace.app;

import static io.millrace.app.StandaloneEndToEndTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Json;
import io.millrace.serdes.TopicAdmin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flows started by their triggers on the real engine: a webhook call, and records on the user's own Kafka topic. */
class TriggersEndToEndTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** Kestra 0.22's realtime benchmark flow as published, but for its topic and broker (see BENCHMARKS.md). */
    static final String REALTIME_KAFKA_JSON = """
            id: realtime-kafka-json
            namespace: company.team

            triggers:
              - id: kafka-logs
                type: io.kestra.plugin.kafka.RealtimeTrigger
                topic: %s
                properties:
                  bootstrap.servers: %s
                groupId: %s

            tasks:
              - id: transform
                type: io.kestra.plugin.transform.jsonata.TransformValue
                from:  "{{trigger.value}}"
                expression: |
                  {
                    "order_id": order_id,
                    "customer_name": first_name & ' ' & last_name,
                    "address": address.city & ', ' & address.country,
                    "total_price": $sum(items.(quantity * price_per_unit))
                  }
              - id: hello
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  log: "{{outputs.transform.value}}"
            """;
    static final String ORDER = """
            {"order_id": 42, "first_name": "Ada", "last_name": "Lovelace", "address": {"city": "London", "country": "UK"},
             "items": [{"quantity": 2, "price_per_unit": 10.5}, {"quantity": 1, "price_per_unit": 4}]}""";

    @TempDir
    Path stateDir;

    @Test
    void shouldStartOneExecutionPerRecordOfTheUsersTopicWithTheKestraBenchmarkFlow() throws Exception {
        // given: the engine, the benchmark flow on a topic of this test, and a second flow reading JSON with a DLQ
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("kafka-trigger", stateDir, "port", "0",
                "task-kafka-allow-engine-cluster", "true"), null);
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String orders = "orders-" + suffix;
        String events = "events-" + suffix;
        String dlq = "bad-events-" + suffix;
        createTopics(orders, events, dlq);
        try (Engine engine = Engine.start(config); var outcomes = new TriggerOutcomes(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            send("POST", api + "/flows", REALTIME_KAFKA_JSON.formatted(orders, broker(), "orders-" + suffix), 200);
            send("POST", api + "/flows", """
                    id: json-events
                    namespace: company.team
                    triggers:
                      - id: events
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: %s
                        properties: {bootstrap.servers: "%s", auto.offset.reset: earliest}
                        groupId: events-%s
                        keyDeserializer: STRING
                        valueDeserializer: JSON
                        onSerdeError: {type: DLQ, topic: %s}
                    tasks:
                      - id: echo
                        type: io.kestra.plugin.core.debug.Return
                        format: "{{ trigger.value.kind }} {{ trigger.key }} {{ trigger.headers[0].source ?? '' }} {{ trigger.topic }}"
                    """.formatted(events, broker(), suffix, dlq), 200);

            // when: at once, before the triggers' consumers may have joined their groups, an ordinary producer writes
            // an order (read by the benchmark flow's new group from the records written since its flow was saved), an
            // event, a record that is not JSON, and another event
            try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(orders, null, ORDER)).get();
                var event = new ProducerRecord<>(events, "k1", "{\"kind\": \"created\"}");
                event.headers().add("source", "shop".getBytes(StandardCharsets.UTF_8));
                producer.send(event).get();
                producer.send(new ProducerRecord<>(events, "k2", "not json")).get();
                producer.send(new ProducerRecord<>(events, "k3", "{\"kind\": \"deleted\"}")).get();
            }

            // then: one execution per readable record, with the trigger that started it and its variables
            outcomes.await(3, Duration.ofSeconds(60));
            outcomes.drain(Duration.ofSeconds(2));
            assertThat(outcomes.flowIds).hasSize(3);
            String order = outcomes.flowIds.entrySet().stream()
                    .filter(e -> e.getValue().equals("realtime-kafka-json")).findFirst().orElseThrow().getKey();
            JsonNode json = ended(api, order);
            assertThat(json.at("/state/current").asText()).isEqualTo("SUCCESS");
            assertThat(json.at("/trigger/id").asText()).isEqualTo("kafka-logs");
            assertThat(json.at("/trigger/type").asText()).isEqualTo("io.kestra.plugin.kafka.RealtimeTrigger");
            assertThat(json.at("/trigger/variables/topic").asText()).isEqualTo(orders);
            assertThat(json.at("/trigger/variables/offset").asLong()).isZero();
            JsonNode log = Json.MAPPER.readTree(json.at("/taskRunList/1/outputs/values/log").asText());
            assertThat(log.path("customer_name").asText()).isEqualTo("Ada Lovelace");
            assertThat(log.path("total_price").asDouble()).isEqualTo(25.0);
            List<String> echoes = new ArrayList<>();
            for (var e : outcomes.flowIds.entrySet()) {
                if (e.getValue().equals("json-events")) {
                    JsonNode read = ended(api, e.getKey());
                    echoes.add(read.at("/taskRunList/0/outputs/value").asText());
                }
            }
            assertThat(echoes).containsExactlyInAnyOrder("created k1 shop " + events, "deleted k3  " + events);

            // and: the unreadable record went to the dead-letter topic as it came, with the reason
            ConsumerRecord<String, String> letter = readOne(dlq);
            assertThat(letter.key()).isEqualTo("k2");
            assertThat(letter.value()).isEqualTo("not json");
            assertThat(new String(letter.headers().lastHeader("millrace.error").value(), StandardCharsets.UTF_8))
                    .startsWith(events + "-0@1: Not JSON");
        }
    }

    @Test
    void shouldStartAnExecutionFromAWebhookAndAnswerItOnceItEnded() throws Exception {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("webhook", stateDir, "port", "0"), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            send("POST", api + "/flows", """
                    id: greet
                    namespace: company.team
                    triggers:
                      - id: hook
                        type: io.kestra.plugin.core.trigger.Webhook
                        key: k3y-0123456789abcdef
                        wait: true
                    tasks:
                      - id: hello
                        type: io.kestra.plugin.core.debug.Return
                        format: "Hello {{ trigger.body.name }} from {{ trigger.parameters.city[0] }}"
                    """, 200);

            // when
            JsonNode execution = send("POST",
                    api + "/executions/webhook/company.team/greet/k3y-0123456789abcdef?city=Paris",
                    "{\"name\": \"Ada\"}", 200);

            // then
            assertThat(execution.at("/state/current").asText()).isEqualTo("SUCCESS");
            assertThat(execution.at("/taskRunList/0/outputs/value").asText()).isEqualTo("Hello Ada from Paris");
            assertThat(execution.at("/trigger/id").asText()).isEqualTo("hook");
            assertThat(execution.at("/trigger/variables/body/name").asText()).isEqualTo("Ada");
        }
    }

    @Test
    void shouldStartAFlowWhenAnExecutionOfAnotherEndsAsItsConditionsSay() throws Exception {
        // given: an upstream flow with an output, and a downstream flow triggered by its successes
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("flow-trigger", stateDir, "port", "0"), null);
        try (Engine engine = Engine.start(config); var outcomes = new TriggerOutcomes(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            send("POST", api + "/flows", """
                    id: etl
                    namespace: company.team
                    labels: {env: prod}
                    inputs:
                      - {id: fail, type: BOOLEAN, defaults: false}
                    tasks:
                      - {id: load, type: io.kestra.plugin.core.execution.Fail, condition: "{{ inputs.fail }}"}
                      - {id: count, type: io.kestra.plugin.core.debug.Return, format: "42"}
                    outputs:
                      - {id: rows, type: STRING, value: "{{ outputs.count.value }}"}
                    """, 200);
            send("POST", api + "/flows", """
                    id: report
                    namespace: company.team
                    inputs:
                      - {id: rows, type: STRING}
                    triggers:
                      - id: after-etl
                        type: io.kestra.plugin.core.trigger.Flow
                        states: [SUCCESS]
                        inputs: {rows: "{{ trigger.outputs.rows }}"}
                        conditions:
                          - type: io.kestra.plugin.core.condition.ExecutionFlow
                            namespace: company.team
                            flowId: etl
                          - type: io.kestra.plugin.core.condition.ExecutionLabels
                            labels: {env: prod}
                    tasks:
                      - id: summary
                        type: io.kestra.plugin.core.debug.Return
                        format: "{{ trigger.flowId }} {{ trigger.state }} {{ inputs.rows }} {{ trigger.executionId }}"
                    """, 200);

            // when: at once (the engine started with its Flow triggers listening, and they wait for the flows saved
            // before an end), etl succeeds once and fails once
            String succeeded = send("POST", api + "/executions/company.team/etl?wait=true", "{}", 200).path("id").asText();
            JsonNode failed = send("POST", api + "/executions/company.team/etl?wait=true", "{\"inputs\": {\"fail\": true}}", 200);

            // then: one report, for the success
            assertThat(failed.at("/state/current").asText()).isEqualTo("FAILED");
            outcomes.await(3, Duration.ofSeconds(60));
            outcomes.drain(Duration.ofSeconds(2));
            List<String> reports = outcomes.variables.entrySet().stream()
                    .filter(e -> succeeded.equals(e.getValue().get("executionId"))).map(Map.Entry::getKey).toList();
            assertThat(outcomes.variables).hasSize(3);
            assertThat(reports).hasSize(1);
            JsonNode report = ended(api, reports.getFirst());
            assertThat(report.at("/taskRunList/0/outputs/value").asText()).isEqualTo("etl SUCCESS 42 " + succeeded);
            assertThat(report.at("/trigger/type").asText()).isEqualTo("io.kestra.plugin.core.trigger.Flow");
            assertThat(report.at("/trigger/variables/flowRevision").asInt()).isEqualTo(1);
        }
    }

    /** The execution as the gateway shows it once it has its end (its read model may follow the topic a moment later). */
    private static JsonNode ended(String api, String id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        var request = HttpRequest.newBuilder(URI.create(api + "/executions/" + id)).GET().build();
        while (true) {
            var response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode execution = response.statusCode() == 200 ? Json.MAPPER.readTree(response.body()) : null;
            boolean terminal = execution != null
                    && List.of("SUCCESS", "WARNING", "FAILED", "KILLED").contains(execution.at("/state/current").asText());
            if (terminal || System.nanoTime() > deadline) {
                assertThat(response.statusCode()).as("GET execution %s: %s", id, response.body()).isEqualTo(200);
                return execution;
            }
            Thread.sleep(100);
        }
    }

    private static String broker() {
        return EmbeddedKafkaBroker.shared().bootstrapServers();
    }

    private static void createTopics(String... names) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(java.util.Arrays.stream(names).map(n -> new NewTopic(n, 1, (short) 1)).toList()).all().get();
            TopicAdmin.awaitWritable(admin, List.of(names));
        }
    }

    private static ConsumerRecord<String, String> readOne(String topic) {
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringDeserializer(), new StringDeserializer())) {
            var partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    return record;
                }
            }
            throw new AssertionError("Expected a record on " + topic);
        }
    }
}
