package io.millrace.bench;

import io.millrace.serdes.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Starts executions through the gateway ({@code POST /api/v1/executions/{namespace}/{flowId}}), without waiting. An
 * answer is a start (200 with the execution's id), a refusal (429 or 503 with {@code Retry-After}: the gateway shed the
 * start, e.g. over {@code max-executor-backlog}), or a failed start (any other answer); a request that gets no answer
 * within {@link #TIMEOUT} (or whose connection fails) is unanswered.
 */
final class RestStarter implements Starter {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(threads)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final URI uri;
    private final Workload workload;
    private final Tracker tracker;

    private final String token;
    /** Whether the first start without an answer was reported: the reason tells a slow engine from a slow client. */
    private final java.util.concurrent.atomic.AtomicBoolean toldUnanswered = new java.util.concurrent.atomic.AtomicBoolean();

    /** @param token a bearer token for the API (a gateway role needs one), or null */
    RestStarter(URI api, String token, Workload workload, String flowId, Tracker tracker) {
        this.token = token;
        this.uri = URI.create(api.toString().replaceAll("/+$", "") + "/executions/" + Workload.NAMESPACE + "/" + flowId);
        this.workload = workload;
        this.tracker = tracker;
    }

    @Override
    public void start(long n, long dueNanos, LatencyWindow window) {
        String body = Json.write(Map.of("inputs", workload.inputs(n)));
        var request = authorized(HttpRequest.newBuilder(uri), token).timeout(TIMEOUT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
            if (error != null) {
                if (toldUnanswered.compareAndSet(false, true)) {
                    System.err.println("A REST start got no answer (more may follow, not reported): " + error);
                }
                tracker.startUnanswered(window);
                return;
            }
            window.recordAnswer(System.nanoTime() - dueNanos);
            if (refused(response)) {
                tracker.startRefused(window);
                return;
            }
            Object id = executionId(response);
            if (id == null) {
                tracker.startFailed(window);
            } else {
                tracker.started(id.toString(), dueNanos, window);
            }
        });
    }

    /** 429 or 503 with {@code Retry-After}: turned away, to be tried again later. */
    static boolean refused(HttpResponse<?> response) {
        return (response.statusCode() == 429 || response.statusCode() == 503)
                && response.headers().firstValue("Retry-After").isPresent();
    }

    /** The new execution's id from a 200 answer; null for any other answer. */
    private static Object executionId(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            return null;
        }
        try {
            return Json.readMap(response.body()).get("id");
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public void close() {
        http.close();
        threads.close();
    }

    /** Posts a flow's YAML to {@code api}'s {@code /flows}; the answer, whatever its status. */
    static HttpResponse<String> postFlow(HttpClient http, URI api, String token, String source)
            throws IOException, InterruptedException {
        return http.send(authorized(HttpRequest.newBuilder(URI.create(api.toString().replaceAll("/+$", "") + "/flows")), token)
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/x-yaml")
                .POST(HttpRequest.BodyPublishers.ofString(source)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Deploys a flow through {@code api}; an exception naming {@code what} unless the API took it. */
    static void deployFlow(HttpClient http, URI api, String token, String source, String what)
            throws IOException, InterruptedException {
        HttpResponse<String> response = postFlow(http, api, token, source);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("Deploying " + what + " failed: " + response.statusCode() + " " + response.body());
        }
    }

    /** The request with {@code Authorization: Bearer <token>} when there is a token. */
    static HttpRequest.Builder authorized(HttpRequest.Builder request, String token) {
        return token == null || token.isBlank() ? request : request.header("Authorization", "Bearer " + token.trim());
    }
}
