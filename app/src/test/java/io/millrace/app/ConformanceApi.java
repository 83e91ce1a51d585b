package io.millrace.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.millrace.serdes.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/** The engine's REST API, as the conformance runner uses it. */
final class ConformanceApi {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final String base;

    /** An answer: its status and its body, as JSON when it is JSON, else as text. */
    record Reply(int status, JsonNode body) {
        /** The API's {@code message} (which names every problem), else the body as it came. */
        String message() {
            return body.path("message").asText(body.isTextual() ? body.asText() : body.toString());
        }
    }

    ConformanceApi(int port) {
        this.base = "http://localhost:" + port + "/api/v1";
    }

    Reply postFlow(String yaml) throws IOException, InterruptedException {
        return send("POST", "/flows", yaml);
    }

    /** Starts an execution; with {@code wait}, answers once it is terminal (200) or the wait ran out (202). */
    Reply start(String namespace, String flowId, JsonNode body, Duration wait) throws IOException, InterruptedException {
        String query = wait == null ? "" : "?wait=true&timeout=" + wait;
        return send("POST", "/executions/" + namespace + "/" + flowId + query, Json.MAPPER.writeValueAsString(body));
    }

    Optional<JsonNode> execution(String id) throws IOException, InterruptedException {
        Reply reply = send("GET", "/executions/" + id, null);
        return reply.status() == 200 ? Optional.of(reply.body()) : Optional.empty();
    }

    /** The executions of one flow, as {@code GET /api/v1/executions/search} finds them. */
    List<JsonNode> executionsOf(String namespace, String flowId) throws IOException, InterruptedException {
        Reply reply = send("GET", "/executions/search?namespace=" + namespace + "&flowId=" + flowId + "&size=100", null);
        if (reply.status() != 200) {
            throw new IllegalStateException("GET /executions/search answered " + reply.status() + ": " + reply.message());
        }
        var executions = new ArrayList<JsonNode>();
        reply.body().path("results").forEach(executions::add);
        return executions;
    }

    /** The execution's log lines, oldest first, as {@code GET /api/v1/logs/{id}} answers them. */
    List<JsonNode> logs(String id) throws IOException, InterruptedException {
        Reply reply = send("GET", "/logs/" + id, null);
        if (reply.status() != 200) {
            throw new IllegalStateException("GET /logs/" + id + " answered " + reply.status() + ": " + reply.message());
        }
        var lines = new ArrayList<JsonNode>();
        reply.body().forEach(lines::add);
        return lines;
    }

    /** Resumes a PAUSED execution with {@code inputs} (missing: none), as a person would through the API. */
    Reply resume(String id, JsonNode inputs) throws IOException, InterruptedException {
        var body = Json.MAPPER.createObjectNode();
        body.set("inputs", inputs.isObject() ? inputs : Json.MAPPER.createObjectNode());
        return send("POST", "/executions/" + id + "/resume", body.toString());
    }

    void kill(String id) throws IOException, InterruptedException {
        send("POST", "/executions/" + id + "/kill", null);
    }

    /** Polls the execution until {@code until} holds or {@code within} passes; answers the last one read. */
    JsonNode await(String id, Predicate<JsonNode> until, Duration within) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        JsonNode last = Json.MAPPER.missingNode();
        while (true) {
            Optional<JsonNode> read = execution(id);
            if (read.isPresent()) {
                last = read.get();
                if (until.test(last)) {
                    return last;
                }
            }
            if (System.nanoTime() > deadline) {
                return last;
            }
            Thread.sleep(100);
        }
    }

    private Reply send(String method, String path, String body) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create(base + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", path.endsWith("/flows") ? "application/x-yaml" : "application/json")
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(response.body());
        } catch (IOException notJson) {
            json = TextNode.valueOf(response.body());
        }
        return new Reply(response.statusCode(), json == null ? TextNode.valueOf("") : json);
    }
}
