package io.millrace.app;

import static io.millrace.app.StandaloneEndToEndTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pause, resume, restart, concurrency limits and kill over REST, as a person approving, fixing or stopping a step
 * would: one engine, the real broker.
 */
class ExecutionControlEndToEndTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String APPROVAL = """
            id: approval
            namespace: company.team
            tasks:
              - id: wait_for_approval
                type: io.kestra.plugin.core.flow.Pause
                onResume:
                  - {id: approved, type: BOOLEAN}
                  - {id: reason, type: STRING, defaults: Well-deserved vacation}
              - id: decision
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  approved: "{{ outputs.wait_for_approval.onResume.approved }}"
                  reason: "{{ outputs.wait_for_approval.onResume.reason }}"
            """;
    private static final String SLOW = """
            id: slow
            namespace: company.team
            tasks:
              - {id: nap, type: io.kestra.plugin.core.flow.Sleep, duration: PT2S}
              - {id: after, type: io.kestra.plugin.core.log.Log, message: awake}
            """;

    private static final String SLEEPY = """
            id: sleepy
            namespace: company.team
            tasks:
              - {id: nap, type: io.kestra.plugin.core.flow.Sleep, duration: PT60S}
            """;

    /** Fails its first attempt only: a restart's new attempt succeeds. */
    private static final String FLAKY = """
            id: flaky
            namespace: company.team
            tasks:
              - {id: before, type: io.kestra.plugin.core.log.Log, message: once}
              - id: flaky
                type: io.kestra.plugin.core.execution.Fail
                condition: "{{ taskrun.attemptsCount == 0 }}"
              - {id: after, type: io.kestra.plugin.core.log.Log, message: done}
            """;

    /** Retried as a new execution three seconds after it fails. */
    private static final String RETRIED_LATER = """
            id: retried-later
            namespace: company.team
            tasks:
              - id: fails
                type: io.kestra.plugin.core.execution.Fail
                retry: {type: constant, interval: PT3S, maxAttempt: 3, behavior: CREATE_NEW_EXECUTION}
            """;

    /** One at a time: a second execution waits QUEUED. */
    private static final String ONE_AT_A_TIME = """
            id: one-at-a-time
            namespace: company.team
            concurrency:
              limit: 1
            tasks:
              - {id: nap, type: io.kestra.plugin.core.flow.Sleep, duration: PT2S}
            """;

    @TempDir
    Path stateDir;

    @Test
    void shouldPauseResumeRestartAndKillWhatRunsOnAWorker() throws Exception {
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("pause", stateDir, "port", "0", "wait-timeout", "PT3S"), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            send("POST", api + "/flows", APPROVAL, 200);
            send("POST", api + "/flows", SLOW, 200);

            // given: an execution waiting for approval
            String id = send("POST", api + "/executions/company.team/approval", null, 200).path("id").asText();
            JsonNode paused = await(api, id, e -> state(e).equals("PAUSED"));
            assertThat(paused.at("/taskRunList/0/state/current").asText()).isEqualTo("PAUSED");

            // when / then: inputs that do not match onResume are refused, a paused execution cannot pause again
            JsonNode refused = send("POST", api + "/executions/" + id + "/resume", "{\"inputs\": {\"approved\": \"maybe\"}}", 400);
            assertThat(refused.toString()).contains("approved").contains("BOOLEAN");
            send("POST", api + "/executions/" + id + "/pause", null, 409);
            send("POST", api + "/executions/nope/resume", "{}", 404);

            // when: resumed with Kestra's multipart form
            assertThat(multipart(api + "/executions/" + id + "/resume", Map.of("approved", "true"))).isEqualTo(204);

            // then
            JsonNode done = await(api, id, e -> state(e).equals("SUCCESS"));
            assertThat(done.at("/taskRunList/1/outputs/values/approved").asText()).isEqualTo("true");
            assertThat(done.at("/taskRunList/1/outputs/values/reason").asText()).isEqualTo("Well-deserved vacation");
            assertThat(done.at("/taskRunList/0/outputs/onResume/approved").asBoolean()).isTrue();
            assertThat(done.at("/state/histories").findValuesAsText("state"))
                    .containsExactly("CREATED", "RUNNING", "PAUSED", "RUNNING", "SUCCESS");
            send("POST", api + "/executions/" + id + "/resume", "{}", 409);

            // and given: a running execution paused by a call while its first task sleeps
            String slow = send("POST", api + "/executions/company.team/slow", null, 200).path("id").asText();
            await(api, slow, e -> state(e).equals("RUNNING"));
            send("POST", api + "/executions/" + slow + "/pause", null, 204);

            // then: the sleep ends, nothing starts after it
            JsonNode held = await(api, slow, e -> state(e).equals("PAUSED")
                    && e.at("/taskRunList/0/state/current").asText().equals("SUCCESS"));
            Thread.sleep(500);
            assertThat(get(api, slow).path("taskRunList")).as("%s", held).hasSize(1);

            // when: resumed with a JSON body
            send("POST", api + "/executions/" + slow + "/resume", "{\"inputs\": {}}", 204);

            // then
            assertThat(await(api, slow, e -> state(e).equals("SUCCESS")).path("taskRunList")).hasSize(2);

            // and when: an execution is followed from its start
            String followed = send("POST", api + "/executions/company.team/slow", null, 200).path("id").asText();
            HttpResponse<java.util.stream.Stream<String>> stream = HTTP.send(HttpRequest.newBuilder(
                    URI.create(api + "/executions/" + followed + "/follow")).header("Accept", "text/event-stream")
                    .GET().build(), HttpResponse.BodyHandlers.ofLines());
            List<String> lines = stream.body().toList(); // until the server ends the stream

            // then: a frame now, frames as it changes, the last one terminal, and the end of the stream
            assertThat(stream.statusCode()).isEqualTo(200);
            assertThat(stream.headers().firstValue("Content-Type")).as("%s", lines).hasValueSatisfying(type ->
                    assertThat(type).startsWith("text/event-stream"));
            List<JsonNode> frames = new ArrayList<>();
            for (String line : lines) {
                if (line.startsWith("data: ")) {
                    frames.add(Json.MAPPER.readTree(line.substring(6)));
                }
            }
            assertThat(lines).contains("id: start");
            assertThat(frames.size()).as("frames %s", lines).isGreaterThanOrEqualTo(2);
            assertThat(frames).allSatisfy(frame -> assertThat(frame.path("id").asText()).isEqualTo(followed));
            assertThat(frames.getLast().at("/state/current").asText()).isEqualTo("SUCCESS");
            assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(api + "/executions/nope/follow"))
                    .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofLines()).body().toList())
                    .as("an execution unknown after wait-timeout").contains("event: error",
                            "data: Execution 'nope' not found");
            assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(api + "/executions/" + followed + "/follow")).GET()
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode()).as("without Accept").isEqualTo(406);

            // and when: the log lines of an execution are followed from its start
            String logged = send("POST", api + "/executions/company.team/slow", null, 200).path("id").asText();
            List<String> logLines = HTTP.send(HttpRequest.newBuilder(URI.create(api + "/logs/" + logged + "/follow"))
                    .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofLines()).body().toList();

            // then: each line as an event, until the stream ends after the execution
            List<JsonNode> logEvents = new ArrayList<>();
            for (String line : logLines) {
                if (line.startsWith("data: ")) {
                    logEvents.add(Json.MAPPER.readTree(line.substring(6)));
                }
            }
            assertThat(logEvents).as("%s", logLines).anySatisfy(event -> {
                assertThat(event.path("taskId").asText()).isEqualTo("after");
                assertThat(event.path("message").asText()).isEqualTo("awake");
            });
            assertThat(state(get(api, logged))).isEqualTo("SUCCESS");

            // and given: an execution that failed at its second task
            send("POST", api + "/flows", FLAKY, 200);
            String flaky = send("POST", api + "/executions/company.team/flaky?wait=true", null, 200).path("id").asText();
            assertThat(state(get(api, flaky))).isEqualTo("FAILED");
            send("POST", api + "/executions/" + slow + "/restart", null, 409);
            send("POST", api + "/executions/nope/restart", null, 404);

            // when
            send("POST", api + "/executions/" + flaky + "/restart", null, 202);

            // then: it goes on from the failed task, with a new attempt, and keeps what succeeded
            JsonNode restarted = await(api, flaky, e -> state(e).equals("SUCCESS"));
            assertThat(restarted.at("/state/histories").findValuesAsText("state"))
                    .containsExactly("CREATED", "RUNNING", "FAILED", "RESTARTED", "RUNNING", "SUCCESS");
            assertThat(restarted.at("/taskRunList/0/attempts")).hasSize(1);
            assertThat(restarted.at("/taskRunList/1/attempts").findValuesAsText("current")).containsExactly("FAILED", "SUCCESS");
            assertThat(restarted.path("taskRunList")).hasSize(3);

            // and when: it is replayed, as a new execution from its start
            send("POST", api + "/executions/" + flaky + "/replay?taskRunId=x", null, 400);
            JsonNode replay = send("POST", api + "/executions/" + flaky + "/replay", null, 200);

            // then: the same flow, a new id naming the first; its first attempt of the flaky task fails again
            assertThat(replay.path("id").asText()).isNotEqualTo(flaky);
            JsonNode replayed = await(api, replay.path("id").asText(), e -> state(e).equals("FAILED"));
            assertThat(replayed.path("originalId").asText()).isEqualTo(flaky);
            assertThat(replayed.at("/metadata/attemptNumber").asInt()).isEqualTo(2);
            assertThat(replayed.at("/labels")).isEqualTo(restarted.at("/labels"));

            // and when: the restarted execution is replayed from its flaky task run
            String flakyRun = restarted.at("/taskRunList/1/id").asText();
            JsonNode fromRun = send("POST", api + "/executions/" + flaky + "/replay?taskRunId=" + flakyRun, null, 200);

            // then: a new execution keeps the task before it, not run again, and runs the flaky task anew (whose first
            // attempt fails again), and nothing after it
            JsonNode replayedFromRun = await(api, fromRun.path("id").asText(), e -> state(e).equals("FAILED"));
            assertThat(replayedFromRun.path("taskRunList")).as("%s", replayedFromRun).hasSize(2);
            assertThat(replayedFromRun.at("/taskRunList/0/taskId").asText()).isEqualTo("before");
            assertThat(replayedFromRun.at("/taskRunList/0/state/current").asText()).isEqualTo("SUCCESS");
            assertThat(replayedFromRun.at("/taskRunList/0/attempts")).isEmpty();
            assertThat(replayedFromRun.at("/taskRunList/1/taskId").asText()).isEqualTo("flaky");
            assertThat(replayedFromRun.at("/taskRunList/1/attempts")).hasSize(1);
            assertThat(replayedFromRun.path("originalId").asText()).isEqualTo(flaky);
            send("POST", api + "/executions/" + flaky + "/replay?revision=99", null, 404);
            send("POST", api + "/executions/" + flaky + "/replay?revision=last", null, 400);
            JsonNode onRevision = send("POST", api + "/executions/" + flaky + "/replay?revision=1", null, 200);
            assertThat(onRevision.path("flowRevision").asInt()).isEqualTo(1);

            // and when: two executions of a flow limited to one at a time
            send("POST", api + "/flows", ONE_AT_A_TIME, 200);
            String firstInLine = send("POST", api + "/executions/company.team/one-at-a-time", null, 200).path("id").asText();
            await(api, firstInLine, e -> state(e).equals("RUNNING"));
            String secondInLine = send("POST", api + "/executions/company.team/one-at-a-time", null, 200).path("id").asText();

            // then: the second waits QUEUED (its history says so, however fast this machine polls), then runs once the
            // first has ended
            JsonNode second = await(api, secondInLine, e -> state(e).equals("SUCCESS"));
            JsonNode first = get(api, firstInLine);
            assertThat(second.at("/state/histories").findValuesAsText("state"))
                    .containsExactly("CREATED", "QUEUED", "RUNNING", "SUCCESS");
            assertThat(Instant.parse(second.at("/state/histories/2/date").asText()))
                    .isAfterOrEqualTo(Instant.parse(first.at("/state/endDate").asText()));

            // and when: an execution sleeping a minute on a worker is killed
            send("POST", api + "/flows", SLEEPY, 200);
            String sleepy = send("POST", api + "/executions/company.team/sleepy", null, 200).path("id").asText();
            await(api, sleepy, e -> e.at("/taskRunList/0/state/current").asText().equals("RUNNING"));
            Thread.sleep(300); // the worker has the task by now
            send("DELETE", api + "/executions/" + sleepy + "/kill?isOnKillCascade=maybe", null, 400);
            Instant killedAt = Instant.now();
            send("POST", api + "/executions/" + sleepy + "/kill", null, 202);

            // then: KILLED within 2 s, and the worker's task stopped within 1 s
            await(api, sleepy, e -> state(e).equals("KILLED"));
            assertThat(Duration.between(killedAt, Instant.now())).isLessThan(Duration.ofSeconds(2));
            JsonNode stopped = awaitLog(api, sleepy, "stopped, its execution was killed");
            assertThat(Duration.between(killedAt, Instant.parse(stopped.path("timestamp").asText())))
                    .isLessThan(Duration.ofSeconds(1));

            // and when: an execution that waits to be retried as a new one is killed
            send("POST", api + "/flows", RETRIED_LATER, 200);
            String retried = send("POST", api + "/executions/company.team/retried-later", null, 200).path("id").asText();
            await(api, retried, e -> state(e).equals("RETRIED"));
            send("POST", api + "/executions/" + retried + "/kill", null, 202);
            Thread.sleep(4_000); // past the retry's wait

            // then: no new execution of the chain started
            JsonNode found = Json.MAPPER.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(api
                    + "/executions/search?namespace=company.team&flowId=retried-later")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            assertThat(found.path("results")).as("%s", found).singleElement()
                    .satisfies(e -> assertThat(e.path("id").asText()).isEqualTo(retried));
        }
    }

    private static JsonNode awaitLog(String api, String id, String text) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(api + "/logs/" + id)).GET()
                    .build(), HttpResponse.BodyHandlers.ofString());
            for (JsonNode line : Json.MAPPER.readTree(response.body())) {
                if (line.path("message").asText().contains(text)) {
                    return line;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("Expected a log line of execution " + id + " saying '" + text + "' within 30 s");
    }

    private static int multipart(String url, Map<String, String> fields) throws Exception {
        String boundary = "millrace-test-boundary";
        var body = new StringBuilder();
        fields.forEach((name, value) -> body.append("--").append(boundary).append("\r\n")
                .append("Content-Disposition: form-data; name=\"").append(name).append("\"\r\n\r\n")
                .append(value).append("\r\n"));
        body.append("--").append(boundary).append("--\r\n");
        var request = HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static JsonNode await(String api, String id, Predicate<JsonNode> until) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = get(api, id);
            if (last != null && until.test(last)) {
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("Expected execution " + id + " to reach the state wanted within 60 s, but it is " + last);
    }

    private static JsonNode get(String api, String id) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(api + "/executions/" + id)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? Json.MAPPER.readTree(response.body()) : null;
    }

    private static String state(JsonNode execution) {
        return execution.at("/state/current").asText();
    }
}
