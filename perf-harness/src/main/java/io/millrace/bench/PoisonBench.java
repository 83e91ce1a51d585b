package io.millrace.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The poison suite against one engine: while W1 runs at one rate, two measurement windows of the same length, and as
 * the second begins every {@link Poison} flow is started once and records that do not decode reach every topic the
 * roles read. Each poison execution must end within {@link #END_WITHIN}, FAILED with an error naming its limit (or
 * SUCCESS where it may run), a flow nested {@link #NESTING} levels is refused at deploy, and W1's p99 in the poisoned
 * window stays within {@link #P99_FACTOR} times the first window's.
 */
final class PoisonBench {
    static final Duration END_WITHIN = Duration.ofSeconds(30);
    static final double P99_FACTOR = 2.0;
    static final int NESTING = 200;
    private static final Duration WAIT = Duration.ofSeconds(90);

    /**
     * One check of the suite.
     *
     * @param what    the poison
     * @param outcome what the engine answered: the execution's state, or the deploy's status
     * @param seconds from the start to the answer
     * @param detail  the error, or what was expected and missing
     */
    record Check(String what, String outcome, double seconds, String detail, boolean passed) {
    }

    private final URI api;
    private final String token;
    private final String bootstrapServers;
    private final Topics topics;
    private final String workerGroup;
    /** The poisons to send, by flow id, {@code records} and {@code nested}; all when empty. */
    private final List<String> only;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http = HttpClient.newBuilder().executor(threads).build();
    private final List<Check> checks = new ArrayList<>();
    private CompletableFuture<List<Check>> strike;

    PoisonBench(URI api, String token, String bootstrapServers, Topics topics, String workerGroup, List<String> only) {
        this.api = URI.create(api.toString().replaceAll("/+$", ""));
        this.token = token;
        this.bootstrapServers = bootstrapServers;
        this.topics = topics;
        this.workerGroup = workerGroup;
        this.only = List.copyOf(only);
    }

    private boolean sends(String poison) {
        return only.isEmpty() || only.contains(poison);
    }

    private List<Poison> flows() {
        return Poison.all().stream().filter(p -> sends(p.flowId())).toList();
    }

    /** Deploys every poison flow, and the nested one, which must be refused. */
    void deploy() throws Exception {
        for (Poison poison : flows()) {
            RestStarter.deployFlow(http, api, token, poison.source(), poison.flowId());
        }
        if (!sends("nested")) {
            return;
        }
        long start = System.nanoTime();
        HttpResponse<String> nested = RestStarter.postFlow(http, api, token, Poison.nested(NESTING));
        checks.add(new Check("flow nested " + NESTING + " levels", "deploy " + nested.statusCode(), seconds(start),
                nested.body(), nested.statusCode() == 400));
    }

    /** Starts, in the background, the poison records and every poison execution at once. */
    void strike() {
        strike = CompletableFuture.supplyAsync(() -> {
            var done = new ArrayList<Check>();
            if (sends("records")) {
                done.add(records());
            }
            var runs = flows().stream().map(p -> CompletableFuture.supplyAsync(() -> run(p), threads)).toList();
            runs.forEach(run -> done.add(run.join()));
            return done;
        }, threads);
    }

    private Check records() {
        try {
            Poison.writeRecords(bootstrapServers, topics, workerGroup);
            return new Check("undecodable records on commands, results, flows, tasks", "written", 0, "", true);
        } catch (Exception e) {
            return new Check("undecodable records on commands, results, flows, tasks", "not written", 0, e.toString(),
                    false);
        }
    }

    /** Every check: the deploy's, then the strike's once its executions have answered. */
    List<Check> checks() {
        var all = new ArrayList<>(checks);
        if (strike != null) {
            all.addAll(strike.join());
        }
        return all;
    }

    /** Starts the poison's execution, waits for its end, and judges it. */
    private Check run(Poison poison) {
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(RestStarter.authorized(HttpRequest.newBuilder(URI.create(api
                    + "/executions/" + Poison.NAMESPACE + "/" + poison.flowId() + "?wait=true&timeout=PT" + WAIT.toSeconds()
                    + "S")), token).timeout(WAIT.plusSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            double seconds = seconds(start);
            JsonNode execution = Json.MAPPER.readTree(response.body());
            String state = execution.at("/state/current").asText(response.statusCode() + "");
            boolean named = "FAILED".equals(state) && response.body().contains(poison.limit());
            boolean ran = poison.mayRun() && "SUCCESS".equals(state);
            boolean passed = seconds <= END_WITHIN.toSeconds() && (named || ran);
            String detail = firstError(execution);
            if (!passed) {
                detail = "expected to end within " + END_WITHIN.toSeconds() + " s, FAILED naming '" + poison.limit() + "'"
                        + (poison.mayRun() ? " or SUCCESS" : "") + "; " + detail;
            }
            return new Check(poison.flowId(), state, seconds, detail, passed);
        } catch (Exception e) {
            return new Check(poison.flowId(), "no answer", seconds(start), e.toString(), false);
        }
    }

    /** The execution's error, else its first task run's. */
    private static String firstError(JsonNode execution) {
        if (execution.hasNonNull("error")) {
            return execution.get("error").asText();
        }
        for (JsonNode run : execution.path("taskRunList")) {
            if (run.hasNonNull("error")) {
                return run.get("error").asText();
            }
        }
        return "";
    }


    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /**
     * Whether W1 kept its latency: the poisoned window's p99 within {@link #P99_FACTOR} times the clean one's. Both
     * windows are needed; a sweep that stopped after the first (W1 fell behind) fails.
     */
    static Check load(List<RateResult> windows) {
        if (windows.size() < 2) {
            return new Check("W1 load", "fell behind before the poison", 0, "the clean window did not keep up", false);
        }
        double clean = windows.get(0).p99Ms();
        double poisoned = windows.get(1).p99Ms();
        boolean passed = poisoned <= P99_FACTOR * clean && windows.get(1).failures() == 0;
        return new Check("W1 load", String.format(Locale.ROOT, "p99 %.1f ms, then %.1f ms with poison", clean, poisoned),
                0, String.format(Locale.ROOT, "%.2fx (at most %.1fx), failures %d", poisoned / clean, P99_FACTOR,
                windows.get(1).failures()), passed);
    }

    static String markdown(List<Check> checks) {
        var md = new StringBuilder("| poison | outcome | answered in | passed | detail |\n|---|---|---:|---|---|\n");
        for (Check c : checks) {
            String detail = c.detail().replace("|", "\\|").replace("\n", " ");
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", c.what(), c.outcome(),
                    c.seconds() == 0 ? "" : String.format(Locale.ROOT, "%.1f s", c.seconds()), c.passed() ? "yes" : "**no**",
                    detail.length() > 200 ? detail.substring(0, 200) + "…" : detail));
        }
        return md.toString();
    }

    static void write(Path results, List<Check> checks) throws Exception {
        Files.writeString(results.resolve("poison.md"), markdown(checks), StandardCharsets.UTF_8);
    }
}
