package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.execution.State;
import io.millrace.serdes.CommandMapper;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway on a real broker, with the test standing in for the executor: it reads the commands
 * the gateway produces and publishes the snapshots an executor would. One gateway for the class,
 * on its own topic prefix; each test uses its own flow id.
 */
class GatewayIntegrationTest {
    private static final String NAMESPACE = "company.team";

    @TempDir
    static Path stateDir;

    private static Topics topics;
    private static Gateway gateway;
    private static Api api;
    private static KafkaProducer<String, byte[]> snapshots;
    private static KafkaConsumer<String, byte[]> commands;
    /** Commands read from the topic that no test has asked for yet. */
    private static final List<Command> unclaimed = new ArrayList<>();

    @BeforeAll
    static void startGateway() throws InterruptedException {
        String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of(
                "bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(),
                "topic-prefix", prefix,
                "partitions", "1",
                "port", "0",
                "state-dir", stateDir.toString(),
                "wait-timeout", "PT20S"), null);
        topics = Topics.of(config);
        gateway = Gateway.startStandalone(config);
        assertThat(gateway.awaitReady(Duration.ofSeconds(30))).as("gateway ready").isTrue();
        api = new Api(gateway.port());
        snapshots = new KafkaProducer<>(Map.of("bootstrap.servers", config.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer());
        commands = new KafkaConsumer<>(Map.of("bootstrap.servers", config.bootstrapServers()),
                new StringDeserializer(), new ByteArrayDeserializer());
        var partition = new TopicPartition(topics.commands().name(), 0);
        commands.assign(List.of(partition));
        commands.seekToBeginning(List.of(partition));
    }

    @AfterAll
    static void stopGateway() {
        if (commands != null) {
            commands.close();
        }
        if (snapshots != null) {
            snapshots.close();
        }
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void shouldReportHealthyOnceRunning() {
        // when
        var answer = api.get("/health");

        // then
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.json().path("status").asText()).isEqualTo("UP");
        assertThat(gateway.ready()).isTrue();
    }

    @Test
    void shouldStoreAFlowAndReadItBackWithRevisions() {
        // given
        String v1 = flow("stored", "hello");
        String v2 = flow("stored", "hello again");

        // when
        var first = api.post("/api/v1/flows", v1);
        var same = api.post("/api/v1/flows", v1);
        var second = api.post("/api/v1/flows", v2);
        var read = api.get("/api/v1/flows/" + NAMESPACE + "/stored");

        // then
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.json().toString()).isEqualTo("{\"namespace\":\"company.team\",\"id\":\"stored\",\"revision\":1}");
        assertThat(same.json().path("revision").asInt()).as("identical source, same revision").isEqualTo(1);
        assertThat(second.json().path("revision").asInt()).isEqualTo(2);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().path("revision").asInt()).isEqualTo(2);
        assertThat(read.json().path("source").asText()).isEqualTo(v2);
    }

    @Test
    void shouldServeAFlowRevisionsGraph() {
        // given: two revisions, the second with a Parallel and an errors branch
        api.post("/api/v1/flows", flow("drawn", "one"));
        api.post("/api/v1/flows", "id: drawn\nnamespace: " + NAMESPACE + "\ntasks:\n"
                + "  - id: both\n    type: io.kestra.plugin.core.flow.Parallel\n    tasks:\n"
                + "      - {id: left, type: log, message: l}\n      - {id: right, type: log, message: r}\n"
                + "errors:\n  - {id: alert, type: log, message: e}\n");

        // when
        var latest = api.get("/api/v1/flows/" + NAMESPACE + "/drawn/graph");
        var first = eventually(() -> api.get("/api/v1/flows/" + NAMESPACE + "/drawn/graph?revision=1"),
                a -> a.status() == 200); // a past revision is read from the store, which may lag a deploy
        var missing = api.get("/api/v1/flows/" + NAMESPACE + "/drawn/graph?revision=9");

        // then
        assertThat(latest.status()).isEqualTo(200);
        assertThat(latest.json().path("revision").asInt()).isEqualTo(2);
        JsonNode parallel = latest.json().path("branches").get(0).path("tasks").get(0);
        assertThat(parallel.path("branches").get(0).path("parallel").asBoolean()).isTrue();
        assertThat(parallel.path("branches").get(0).path("tasks")).extracting(t -> t.path("id").asText())
                .containsExactly("left", "right");
        assertThat(latest.json().path("branches").get(1).path("name").asText()).isEqualTo("errors");
        assertThat(first.json().path("branches").get(0).path("tasks").get(0).path("id").asText()).isEqualTo("say");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(api.get("/api/v1/flows/" + NAMESPACE + "/nope/graph").status()).isEqualTo(404);
    }

    @Test
    void shouldAnswer404ForAnUnknownFlowOrRoute() {
        // when
        var flow = api.get("/api/v1/flows/" + NAMESPACE + "/nope");
        var execution = api.post("/api/v1/executions/" + NAMESPACE + "/nope", "");
        var route = api.get("/api/v1/nothing-here");

        // then
        assertThat(flow.status()).isEqualTo(404);
        assertThat(execution.status()).isEqualTo(404);
        assertThat(execution.json().path("message").asText()).isEqualTo("Flow 'company.team/nope' not found");
        assertThat(route.status()).isEqualTo(404);
        assertThat(route.contentType()).startsWith("application/json");
        assertThat(route.json().path("message").asText()).contains("/api/v1/nothing-here");
    }

    @Test
    void shouldDeleteAFlowSoThatNothingStartsItUntilItIsPostedAgain() {
        // given
        String yaml = "id: deleted\nnamespace: " + NAMESPACE + "\n"
                + "triggers:\n  - {id: h, type: io.kestra.plugin.core.trigger.Webhook, key: k-0123456789abcdef}\n"
                + "tasks:\n  - {id: t, type: log, message: m}\n";
        api.post("/api/v1/flows", yaml);
        String flow = "/api/v1/flows/" + NAMESPACE + "/deleted";

        // when
        var deleted = api.delete(flow);

        // then: gone for reads, starts and webhooks; deleting again is a 404
        assertThat(deleted.status()).isEqualTo(204);
        assertThat(api.get(flow).status()).isEqualTo(404);
        assertThat(api.post("/api/v1/executions/" + NAMESPACE + "/deleted", "").status()).isEqualTo(404);
        assertThat(api.post("/api/v1/executions/webhook/" + NAMESPACE + "/deleted/k-0123456789abcdef", "").status())
                .isEqualTo(404);
        assertThat(api.delete(flow).status()).isEqualTo(404);

        // when: posted again, the same source
        var again = api.post("/api/v1/flows", yaml);

        // then: a new revision after the one that deleted it
        assertThat(again.json().path("revision").asInt()).isEqualTo(3);
        assertThat(api.get(flow).json().path("revision").asInt()).isEqualTo(3);
    }

    @Test
    void shouldStartTheRevisionAnotherGatewayDeployedOnceItsStoreHasIt() throws Exception {
        // given: a flow another gateway deployed (straight to the flows topic: this one's overlay never sees it), read
        // here once its store has it, which keeps its latest revision in memory
        deployElsewhere("elsewhere", 1, "one");
        String flow = "/api/v1/flows/" + NAMESPACE + "/elsewhere";
        assertThat(eventually(() -> api.get(flow), a -> a.status() == 200).json().path("revision").asInt())
                .isEqualTo(1);

        // when: it deploys revision 2
        deployElsewhere("elsewhere", 2, "two");

        // then: once the store has it, it is the latest, and what a start runs
        assertThat(eventually(() -> api.get(flow), a -> a.json().path("revision").asInt() == 2)
                .json().path("revision").asInt()).isEqualTo(2);
        String id = api.post("/api/v1/executions/" + NAMESPACE + "/elsewhere", "").json().path("id").asText();
        var create = (CreateExecution) nextCommand(c -> c instanceof CreateExecution && c.executionId().equals(id));
        assertThat(create.revision()).isEqualTo(2);
    }

    @Test
    void shouldListAFlowsRevisionsOldestFirstTheDeletionAndTheJustDeployedOneIncluded() {
        // given
        String revisions = "/api/v1/flows/" + NAMESPACE + "/revised/revisions";
        api.post("/api/v1/flows", flow("revised", "one"));
        api.post("/api/v1/flows", flow("revised", "two"));
        api.delete("/api/v1/flows/" + NAMESPACE + "/revised");

        // when: read at once, before the read model may have the deletion
        var first = api.get(revisions);

        // then: the deletion is there already, as the latest
        assertThat(first.status()).isEqualTo(200);
        JsonNode latest = first.json().get(first.json().size() - 1);
        assertThat(latest.path("revision").asInt()).isEqualTo(3);
        assertThat(latest.path("deleted").asBoolean()).isTrue();

        // and: once stored, every revision, oldest first, each as stored
        JsonNode all = eventually(() -> api.get(revisions), answer -> answer.json().size() == 3).json();
        assertThat(all).extracting(r -> r.path("revision").asInt()).containsExactly(1, 2, 3);
        assertThat(all).extracting(r -> r.path("deleted").asBoolean()).containsExactly(false, false, true);
        assertThat(all.get(0).path("source").asText()).isEqualTo(flow("revised", "one"));
        assertThat(all.get(1).path("source").asText()).isEqualTo(flow("revised", "two"));
        assertThat(all.get(1).path("namespace").asText()).isEqualTo(NAMESPACE);
        assertThat(all.get(1).path("createdAt").asText()).isNotEmpty();
        var unknown = api.get("/api/v1/flows/" + NAMESPACE + "/never/revisions");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().path("message").asText()).isEqualTo("Flow 'company.team/never' not found");
    }

    @Test
    void shouldAnswer409ForADisabledFlow() {
        // given
        api.post("/api/v1/flows", "id: switched-off\nnamespace: " + NAMESPACE + "\ndisabled: true\n"
                + "tasks:\n  - {id: t, type: log, message: m}\n");

        // when
        var execution = api.post("/api/v1/executions/" + NAMESPACE + "/switched-off", "");

        // then
        assertThat(execution.status()).isEqualTo(409);
        assertThat(execution.json().path("message").asText()).contains("is disabled");
    }

    @Test
    void shouldRejectInvalidYamlAndUnknownTaskTypesNamingTheProblem() {
        // when
        var broken = api.post("/api/v1/flows", "id: x\nnamespace: [unclosed");
        var unknownType = api.post("/api/v1/flows", "id: odd\nnamespace: company.team\ntasks:\n  - id: t\n    type: io.kestra.Nope\n");

        // then
        assertThat(broken.status()).isEqualTo(400);
        assertThat(broken.contentType()).startsWith("application/json");
        assertThat(broken.json().path("message").asText()).contains("Invalid YAML");
        assertThat(broken.json().path("details")).hasSize(1);
        assertThat(unknownType.status()).isEqualTo(400);
        assertThat(unknownType.json().path("details").get(0).asText())
                .startsWith("Unknown task type 'io.kestra.Nope' at tasks[0] (task 't').type");
    }

    @Test
    void shouldRejectBadInputsAndMalformedBodies() {
        // given
        api.post("/api/v1/flows", flowWithInput("typed"));

        // when
        var badInput = api.post("/api/v1/executions/" + NAMESPACE + "/typed", "{\"inputs\": {\"count\": \"many\", \"extra\": 1}}");
        var malformed = api.post("/api/v1/executions/" + NAMESPACE + "/typed", "{inputs");

        // then
        assertThat(badInput.status()).isEqualTo(400);
        assertThat(badInput.json().path("details")).extracting(JsonNode::asText).containsExactly(
                "Unknown input 'extra'; the flow declares [count]",
                "Expected input 'count' to be INT, but got 'many'");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.json().path("message").asText()).startsWith("Malformed JSON body");
    }

    @Test
    void shouldProduceACreateExecutionCommandAndAnswerCreated() {
        // given
        api.post("/api/v1/flows", flowWithInput("started"));

        // when
        var answer = api.post("/api/v1/executions/" + NAMESPACE + "/started",
                "{\"inputs\": {\"count\": \"7\"}, \"labels\": {\"team\": \"core\"}}");

        // then
        assertThat(answer.status()).isEqualTo(200);
        String id = answer.json().path("id").asText();
        assertThat(id).hasSize(22);
        assertThat(answer.json().path("state").path("current").asText()).isEqualTo("CREATED");
        assertThat(answer.json().path("inputs").path("count").asLong()).isEqualTo(7L);
        assertThat(answer.json().path("flowRevision").asInt()).isEqualTo(1);
        var create = (CreateExecution) nextCommand(c -> c.executionId().equals(id));
        assertThat(create.namespace()).isEqualTo(NAMESPACE);
        assertThat(create.flowId()).isEqualTo("started");
        assertThat(create.revision()).isEqualTo(1);
        assertThat(create.inputs()).containsEntry("count", "7");
        assertThat(create.labels()).containsEntry("team", "core");
    }

    @Test
    void shouldStartAnExecutionFromAWebhookCallWithItsBodyHeadersAndParameters() {
        // given
        var deployed = api.post("/api/v1/flows", """
                id: hooked
                namespace: %s
                inputs:
                  - {id: who, type: STRING}
                triggers:
                  - id: hook
                    type: io.kestra.plugin.core.trigger.Webhook
                    key: k3y-0123456789abcdef
                    labels: {source: web}
                    inputs:
                      who: "{{ trigger.body.name ?? 'nobody' }} ({{ trigger.parameters.team[0] ?? 'no team' }})"
                  - id: closed
                    type: io.kestra.plugin.core.trigger.Webhook
                    key: closed-0123456789abcdef
                    disabled: true
                tasks:
                  - {id: t, type: log, message: "{{ inputs.who }}"}
                """.formatted(NAMESPACE));
        assertThat(deployed.status()).as(deployed.body()).isEqualTo(200);
        String url = "/api/v1/executions/webhook/" + NAMESPACE + "/hooked/";

        // when
        var answer = api.post(url + "k3y-0123456789abcdef?team=core&team=ops", "{\"name\": \"Ada\"}");

        // then: the execution as created, and the command carries the trigger and its variables
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        String id = answer.json().path("id").asText();
        assertThat(answer.json().path("trigger").path("id").asText()).isEqualTo("hook");
        assertThat(answer.json().path("trigger").path("type").asText()).isEqualTo("io.kestra.plugin.core.trigger.Webhook");
        var create = (CreateExecution) nextCommand(c -> c.executionId().equals(id));
        assertThat(create.inputs()).containsEntry("who", "Ada (core)");
        assertThat(create.labels()).containsEntry("source", "web");
        assertThat(create.trigger().id()).isEqualTo("hook");
        assertThat(create.trigger().variables().get("body")).isEqualTo(Map.of("name", "Ada"));
        assertThat(create.trigger().variables().get("parameters")).isEqualTo(Map.of("team", List.of("core", "ops")));
        assertThat((Map<?, ?>) create.trigger().variables().get("headers")).isNotEmpty();

        // when: a body that is not JSON, and a GET without a body
        var text = api.post(url + "k3y-0123456789abcdef", "plain words");
        var get = api.get(url + "k3y-0123456789abcdef");

        // then
        var textCreate = (CreateExecution) nextCommand(c -> c.executionId().equals(text.json().path("id").asText()));
        assertThat(textCreate.trigger().variables().get("body")).isEqualTo("plain words");
        var getCreate = (CreateExecution) nextCommand(c -> c.executionId().equals(get.json().path("id").asText()));
        assertThat(getCreate.trigger().variables()).doesNotContainKey("body");
        assertThat(getCreate.inputs()).containsEntry("who", "nobody (no team)");

        // and: an unknown key, a disabled trigger's key, an unknown flow: the same answer, nothing tells them apart
        var wrongKey = api.post(url + "nope-0123456789abcdef", "");
        var closed = api.post(url + "closed-0123456789abcdef", "");
        var nowhere = api.post("/api/v1/executions/webhook/" + NAMESPACE + "/nowhere/k3y-0123456789abcdef", "");
        for (var refused : List.of(wrongKey, closed, nowhere)) {
            assertThat(refused.status()).isEqualTo(404);
        }
        assertThat(wrongKey.body()).isEqualTo(closed.body())
                .isEqualTo(nowhere.body().replace("/nowhere'", "/hooked'"))
                .isEqualTo("{\"message\":\"Webhook not found: no enabled Webhook trigger of flow '" + NAMESPACE
                        + "/hooked' has this key\"}");
    }

    @Test
    void shouldAnswerAWebhookOfADisabledFlowAsAnUnknownOne() {
        // given
        api.post("/api/v1/flows", "id: hook-off\nnamespace: " + NAMESPACE + "\ndisabled: true\n"
                + "triggers:\n  - {id: h, type: io.kestra.plugin.core.trigger.Webhook, key: k-0123456789abcdef}\n"
                + "tasks:\n  - {id: t, type: log, message: m}\n");

        // when
        var answer = api.post("/api/v1/executions/webhook/" + NAMESPACE + "/hook-off/k-0123456789abcdef", "");

        // then: no way to tell a disabled flow from a missing one, or a key that is wrong
        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.json().path("message").asText())
                .isEqualTo("Webhook not found: no enabled Webhook trigger of flow '" + NAMESPACE + "/hook-off' has"
                        + " this key");
    }

    @Test
    void shouldProduceAKillCommandOnPostAndOnKestrasDelete() {
        // when
        var posted = api.post("/api/v1/executions/someExecution/kill", "");
        var deleted = api.delete("/api/v1/executions/otherExecution/kill");

        // then
        assertThat(posted.status()).isEqualTo(202);
        assertThat(deleted.status()).isEqualTo(202);
        assertThat(nextCommand(c -> c.executionId().equals("someExecution"))).isInstanceOf(KillExecution.class);
        assertThat(nextCommand(c -> c.executionId().equals("otherExecution"))).isInstanceOf(KillExecution.class);
    }

    @Test
    void shouldServeAPublishedSnapshotInKestraJson() {
        // given
        String id = "snapshot-" + UUID.randomUUID();

        // when
        publish(Snapshots.of(id, NAMESPACE, "served", State.FAILED));
        var answer = eventually(() -> api.get("/api/v1/executions/" + id), a -> a.status() == 200);

        // then
        JsonNode json = answer.json();
        assertThat(json.path("id").asText()).isEqualTo(id);
        assertThat(json.path("flowId").asText()).isEqualTo("served");
        assertThat(json.path("state").path("current").asText()).isEqualTo("FAILED");
        assertThat(json.path("state").path("endDate").isTextual()).isTrue();
        assertThat(json.path("taskRunList").isArray()).isTrue();
        assertThat(json.path("error").asText()).isEqualTo("it broke");
        assertThat(api.get("/api/v1/executions/unknown-" + id).status()).isEqualTo(404);
    }

    @Test
    void shouldSearchExecutionsByFlowStateLabelsTriggerAndTimeNewestFirstAPageAtATime() {
        // given: executions of two flows in a namespace of this test and one under it, started a minute apart
        String ns = "search" + UUID.randomUUID().toString().substring(0, 8);
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        var kafka = new io.millrace.core.execution.ExecutionTrigger("records", "io.kestra.plugin.kafka.RealtimeTrigger", Map.of());
        publish(Snapshots.of(ns + "-1", ns, "etl", State.SUCCESS, t0, Map.of("env", "prod"), kafka));
        publish(Snapshots.of(ns + "-2", ns, "etl", State.FAILED, t0.plusSeconds(60), Map.of("env", "dev"), null));
        publish(Snapshots.of(ns + "-3", ns, "etl", State.SUCCESS, t0.plusSeconds(120), Map.of("env", "prod"), null));
        publish(Snapshots.of(ns + "-4", ns + ".sub", "report", State.SUCCESS, t0.plusSeconds(180), Map.of(), kafka));
        String search = "/api/v1/executions/search?namespace=" + ns;
        eventually(() -> api.get(search), a -> a.json().path("total").asInt() == 4);

        // then
        assertThat(ids(api.get(search))).containsExactly(ns + "-4", ns + "-3", ns + "-2", ns + "-1");
        assertThat(ids(api.get(search + "&flowId=etl&state=SUCCESS"))).containsExactly(ns + "-3", ns + "-1");
        // counts by state: every filter but the state's
        assertThat(api.get(search + "&flowId=etl&state=SUCCESS").json().path("counts").toString())
                .isEqualTo("{\"FAILED\":1,\"SUCCESS\":2}");
        assertThat(api.get(search).json().path("counts").toString()).isEqualTo("{\"FAILED\":1,\"SUCCESS\":3}");
        assertThat(ids(api.get(search + "&labels=env:prod&sort=state.startDate:asc"))).containsExactly(ns + "-1", ns + "-3");
        assertThat(ids(api.get(search + "&triggerType=io.kestra.plugin.kafka.RealtimeTrigger"))).containsExactly(ns + "-4", ns + "-1");
        assertThat(ids(api.get(search + ".sub"))).containsExactly(ns + "-4");
        var page = api.get(search + "&size=3&page=2");
        assertThat(ids(page)).containsExactly(ns + "-1");
        assertThat(page.json().path("total").asInt()).isEqualTo(4);
        assertThat(page.json().at("/results/0/state/current").asText()).isEqualTo("SUCCESS");
        // a time range: started at or after startDate, before endDate, on the whole index and on one flow's
        assertThat(ids(api.get(search + "&startDate=2026-01-01T00:01:00Z&endDate=2026-01-01T00:03:00Z")))
                .containsExactly(ns + "-3", ns + "-2");
        assertThat(ids(api.get(search + "&flowId=etl&startDate=2026-01-01T00:00:00.001Z"))).containsExactly(ns + "-3", ns + "-2");
        assertThat(ids(api.get(search + "&flowId=etl&endDate=2026-01-01T00:02:00Z"))).containsExactly(ns + "-2", ns + "-1");
        assertThat(ids(api.get(search + "&timeRange=PT1H"))).isEmpty(); // all started in 2026's first minutes
        assertThat(api.get(search + "&timeRange=P36500D").json().path("total").asInt()).isEqualTo(4);
        assertThat(api.get(search + "&startDate=yesterday").json().path("message").asText()).contains("startDate", "ISO-8601");
        assertThat(api.get(search + "&timeRange=PT0S").status()).isEqualTo(400);
        assertThat(api.get(search + "&timeRange=PT100000000000000H").status()).isEqualTo(400);
        assertThat(api.get(search + "&startDate=2026-01-01T00:03:00Z&endDate=2026-01-01T00:01:00Z").json()
                .path("message").asText()).contains("before its end");
        assertThat(api.get(search + "&timeRange=PT1H&startDate=2026-01-01T00:00:00Z").status()).isEqualTo(400);
        assertThat(api.get(search + "&size=0").status()).isEqualTo(400);
        assertThat(api.get(search + "&labels=nocolon").status()).isEqualTo(400);
        assertThat(api.get(search + "&state=DONE").status()).isEqualTo(400);
        assertThat(api.get(search + "&state=PAUSED&state=queued").json().path("total").asInt()).isZero(); // any state

        // when: one is purged
        snapshots.send(new ProducerRecord<>(topics.executions().name(), ns + "-3", null));
        snapshots.flush();

        // then
        eventually(() -> api.get(search), a -> a.json().path("total").asInt() == 3);
        assertThat(ids(api.get(search + "&flowId=etl"))).containsExactly(ns + "-2", ns + "-1");
    }

    private static List<String> ids(Api.Answer answer) {
        var ids = new ArrayList<String>();
        answer.json().path("results").forEach(e -> ids.add(e.path("id").asText()));
        return ids;
    }

    @Test
    void shouldServeAnExecutionsLogLinesFilteredAndAsText() {
        // given
        String id = "logs-" + UUID.randomUUID();
        var lines = List.of(
                new LogRecord(id, NAMESPACE, "logged", "a", id + "-a", 1, Instant.parse("2026-01-01T00:00:00Z"), "DEBUG", "w-1", "starting"),
                new LogRecord(id, NAMESPACE, "logged", "a", id + "-a", 1, Instant.parse("2026-01-01T00:00:01Z"), "ERROR", "w-1", "broke"),
                new LogRecord(id, NAMESPACE, "logged", "b", id + "-b", 2, Instant.parse("2026-01-01T00:00:02Z"), "INFO", "w-2", "fine"));
        lines.forEach(line -> snapshots.send(new ProducerRecord<>(topics.logs().name(), id, Topics.LOG_SERDE.encode(line))));
        snapshots.flush();

        // when
        var all = eventually(() -> api.get("/api/v1/logs/" + id), a -> a.json().size() == 3);

        // then: Kestra's log entries, oldest first, and the filters narrow them
        assertThat(all.json().get(1).path("message").asText()).isEqualTo("broke");
        assertThat(all.json().get(1).path("level").asText()).isEqualTo("ERROR");
        assertThat(all.json().get(1).path("taskRunId").asText()).isEqualTo(id + "-a");
        assertThat(all.json().get(1).path("attemptNumber").asInt()).isEqualTo(1);
        assertThat(all.json().get(1).path("timestamp").asText()).isEqualTo("2026-01-01T00:00:01Z");
        assertThat(all.json().get(2).path("flowId").asText()).isEqualTo("logged");
        assertThat(messages(api.get("/api/v1/logs/" + id + "?minLevel=INFO"))).containsExactly("broke", "fine");
        assertThat(messages(api.get("/api/v1/logs/" + id + "?taskId=a&attempt=1"))).containsExactly("starting", "broke");
        assertThat(messages(api.get("/api/v1/logs/" + id + "?taskRunId=" + id + "-b"))).containsExactly("fine");
        assertThat(api.get("/api/v1/logs/" + id + "/download").body())
                .isEqualTo("2026-01-01T00:00:00Z DEBUG starting\n2026-01-01T00:00:01Z ERROR broke\n2026-01-01T00:00:02Z INFO fine\n");
        assertThat(api.get("/api/v1/logs/unknown-" + id).json().size()).isZero();
        var bad = api.get("/api/v1/logs/" + id + "?minLevel=LOUD");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("message").asText()).contains("minLevel", "TRACE");
        // a follow's filters are checked before its stream answers
        var badFollow = api.get("/api/v1/logs/" + id + "/follow?minLevel=LOUD", "Accept", "text/event-stream");
        assertThat(badFollow.status()).isEqualTo(400);
        assertThat(badFollow.json().path("message").asText()).contains("minLevel");
    }

    private static List<String> messages(Api.Answer answer) {
        var messages = new ArrayList<String>();
        answer.json().forEach(line -> messages.add(line.path("message").asText()));
        return messages;
    }

    @Test
    void shouldAnswerAWaitingStartWithTheTerminalExecution() throws Exception {
        // given
        api.post("/api/v1/flows", flow("waited", "hi"));

        // when
        var pending = api.postAsync("/api/v1/executions/" + NAMESPACE + "/waited?wait=true&timeout=PT20S", "");
        String id = nextCommand(c -> c instanceof CreateExecution create && create.flowId().equals("waited")).executionId();
        publish(Snapshots.of(id, NAMESPACE, "waited", State.RUNNING));
        Thread.sleep(200);
        assertThat(pending).as("a RUNNING snapshot does not end the wait").isNotDone();
        publish(Snapshots.of(id, NAMESPACE, "waited", State.SUCCESS));
        var answer = pending.get(30, TimeUnit.SECONDS);

        // then
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.json().path("id").asText()).isEqualTo(id);
        assertThat(answer.json().path("state").path("current").asText()).isEqualTo("SUCCESS");
        assertThat(answer.json().path("outputs").path("answer").asInt()).isEqualTo(42);
    }

    @Test
    void shouldAnswerAWaitingWebhookWithItsOutputsOnlyAnd500WhenItsExecutionFailed() throws Exception {
        // given: a webhook that waits and returns the outputs
        api.post("/api/v1/flows", "id: hook-out\nnamespace: " + NAMESPACE + "\n"
                + "triggers:\n  - {id: h, type: io.kestra.plugin.core.trigger.Webhook, key: k-0123456789abcdef,"
                + " wait: true, returnOutputs: true}\n"
                + "tasks:\n  - {id: a, type: io.kestra.plugin.core.log.Log, message: hi}\n");
        String url = "/api/v1/executions/webhook/" + NAMESPACE + "/hook-out/k-0123456789abcdef";

        // when: one call ends SUCCESS, another FAILED
        var succeeding = api.postAsync(url, "");
        String first = nextCommand(c -> c instanceof CreateExecution create && create.flowId().equals("hook-out")).executionId();
        publish(Snapshots.of(first, NAMESPACE, "hook-out", State.SUCCESS));
        var success = succeeding.get(30, TimeUnit.SECONDS);
        var failing = api.postAsync(url, "");
        String second = nextCommand(c -> c instanceof CreateExecution create && create.flowId().equals("hook-out")).executionId();
        publish(Snapshots.of(second, NAMESPACE, "hook-out", State.FAILED));
        var failure = failing.get(30, TimeUnit.SECONDS);

        // then: the outputs alone, and 500 for the failed one
        assertThat(success.status()).isEqualTo(200);
        assertThat(success.json().path("answer").asInt()).isEqualTo(42);
        assertThat(success.json().has("id")).isFalse();
        assertThat(failure.status()).isEqualTo(500);
    }

    @Test
    void shouldAnswer202WithTheLatestKnownExecutionWhenTheWaitTimesOut() {
        // given
        api.post("/api/v1/flows", flow("slow", "zzz"));
        long start = System.nanoTime();

        // when
        var answer = api.post("/api/v1/executions/" + NAMESPACE + "/slow?wait=true&timeout=PT1S", "");

        // then
        assertThat(answer.status()).isEqualTo(202);
        assertThat(answer.json().path("state").path("current").asText()).isEqualTo("CREATED");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    private static String flow(String id, String message) {
        return "id: " + id + "\nnamespace: " + NAMESPACE + "\ntasks:\n  - id: say\n    type: log\n    message: " + message + "\n";
    }

    private static String flowWithInput(String id) {
        return "id: " + id + "\nnamespace: " + NAMESPACE + "\ninputs:\n  - id: count\n    type: INT\n"
                + "tasks:\n  - id: say\n    type: log\n    message: \"{{ inputs.count }}\"\n";
    }

    private static void deployElsewhere(String id, int revision, String message) throws Exception {
        FlowRecord record = FlowMapper.toRecord(new FlowParser().parse(flow(id, message)).withRevision(revision),
                Instant.now().truncatedTo(ChronoUnit.MILLIS));
        snapshots.send(new ProducerRecord<>(topics.flows().name(), FlowMapper.key(NAMESPACE, id, revision),
                Topics.FLOW_SERDE.encode(record))).get();
    }

    private static void publish(ExecutionSnapshot snapshot) {
        String id = snapshot.getExecution().getId();
        snapshots.send(new ProducerRecord<>(topics.executions().name(), id, Topics.SNAPSHOT_SERDE.encode(snapshot)));
        snapshots.flush();
    }

    /** The first matching command on the commands topic not yet taken by an earlier call. */
    private static synchronized Command nextCommand(Predicate<Command> wanted) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            for (var it = unclaimed.iterator(); it.hasNext(); ) {
                Command command = it.next();
                if (wanted.test(command)) {
                    it.remove();
                    return command;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("No matching command on " + topics.commands().name() + " within 10 s");
            }
            for (ConsumerRecord<String, byte[]> record : commands.poll(Duration.ofMillis(100))) {
                Command command = CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(record.value()));
                assertThat(record.key()).as("commands are keyed by execution id").isEqualTo(command.executionId());
                unclaimed.add(command);
            }
        }
    }

    private static Api.Answer eventually(java.util.function.Supplier<Api.Answer> call, Predicate<Api.Answer> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Api.Answer answer = call.get();
        while (!done.test(answer) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            answer = call.get();
        }
        return answer;
    }
}
