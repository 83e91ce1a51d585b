package io.millrace.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.serdes.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/** Calls of the API with a bearer token, as the tests of principals and their grants make them. */
final class BearerCalls {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private BearerCalls() {
    }

    record Answer(int status, String body) {
        JsonNode json() throws Exception {
            return Json.MAPPER.readTree(body);
        }
    }

    /**
     * A call of {@code api + path}; a write declares its content type (YAML for a flow, else JSON) unless
     * {@code headers} (name, value, ...) give one.
     */
    static Answer call(String api, String method, String path, String token, String body, String... headers)
            throws Exception {
        var request = HttpRequest.newBuilder(URI.create(api + path)).timeout(Duration.ofSeconds(90))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (!method.equals("GET") && !method.equals("DELETE") && !List.of(headers).contains("Content-Type")) {
            request.header("Content-Type", path.endsWith("/flows") || path.endsWith("/flows/validate")
                    ? "application/x-yaml" : "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body());
    }

    /** A token's digest as an access file lists it. */
    static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-256", e);
        }
    }
}
