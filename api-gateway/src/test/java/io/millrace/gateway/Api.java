package io.millrace.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.serdes.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A small JSON client for a gateway under test, on java.net.http. */
final class Api {
    /** Status, content type and body of an answer. */
    record Answer(int status, String contentType, String body) {
        JsonNode json() {
            return parse(body);
        }
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    Api(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    Answer get(String path) {
        return join(send(HttpRequest.newBuilder(URI.create(base + path)).GET()));
    }

    /** A header of a GET's answer; "" when it has none. */
    String header(String path, String name) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.discarding()).join().headers().firstValue(name).orElse("");
    }

    /** A GET with headers (name, value, ...). */
    Answer get(String path, String... headers) {
        return join(send(HttpRequest.newBuilder(URI.create(base + path)).headers(headers).GET()));
    }

    Answer post(String path, String body) {
        return join(postAsync(path, body));
    }

    Answer delete(String path) {
        return join(send(HttpRequest.newBuilder(URI.create(base + path)).DELETE()));
    }

    CompletableFuture<Answer> postAsync(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", path.endsWith("/flows") ? "application/x-yaml" : "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private CompletableFuture<Answer> send(HttpRequest.Builder request) {
        return client.sendAsync(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> new Answer(response.statusCode(),
                        response.headers().firstValue("Content-Type").orElse(""), response.body()));
    }

    private static JsonNode parse(String body) {
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("Expected a JSON answer, but got: " + body, e);
        }
    }

    private static Answer join(CompletableFuture<Answer> answer) {
        return answer.join();
    }
}
