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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The poison suite against one engine: while W1 runs at one rate, two measurement windows of the same length, and as
 * the second begins every {@link Poison} flow is started once and records that do not decode reach every topic the
 * roles read. Each poison execution must end within {@link #END_WITHIN}, FAILED with an error naming its limit (or
 * SUCCESS where it may run), a flow nested {@link #NESTING} levels is refused at deploy, and W1's p99 in the poisoned
 * window stays within {@link #P99_FACTOR} times the first window's. Then, against an engine the bench started, the
 * {@link PoisonRestart} phase: SIGKILL, a restart, nothing spinning and every execution of the windows ended once.
 */
final class PoisonBench implements AutoCloseable {
    static final Duration END_WITHIN = Duration.ofSeconds(30);
    static final double P99_FACTOR = 2.0;
    static final int NESTING = 200;
    private static final Duration WAIT = Duration.ofSeconds(90);
    static final String CLEAN = "clean window";
    static final String POISONED = "poison window";
    private static final Set<String> TERMINAL = Set.of("SUCCESS", "WARNING", "FAILED", "KILLED", "SKIPPED");

    /**
     * One check of the suite.
     *
     * @param what    the poison
     * @param outcome what the engine answered: the execution's state, or the deploy's status
     * @param seconds from the start to the answer
     * @param detail  the error, or what was expected and missing
     */
    record Check(String what, String outcome, double seconds, String detail, boolean passed) {
        static final String SKIPPED = "skipped";

        /** A check that could not run here, and why; it fails nothing. */
        static Check skipped(String what, String why) {
            return new Check(what, SKIPPED, 0, why, true);
        }
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
    /** Every execution the windows started, W1's and the poisons', and every ExecutionCompleted the watcher read. */
    private final ChaosLedger ledger;
    private final ChaosLedger.Via loadVia;
    private final List<PoisonRestart.Ended> ended = new CopyOnWriteArrayList<>();
    private ChaosWatcher watcher;

    /**
     * @param ledger  where the windows' starts and the engine's endings are counted, for the restart phase
     * @param loadVia how the load's starts reach the engine
     */
    PoisonBench(URI api, String token, String bootstrapServers, Topics topics, String workerGroup, List<String> only,
                ChaosLedger ledger, ChaosLedger.Via loadVia) {
        this.api = URI.create(api.toString().replaceAll("/+$", ""));
        this.token = token;
        this.bootstrapServers = bootstrapServers;
        this.topics = topics;
        this.workerGroup = workerGroup;
        this.only = List.copyOf(only);
        this.ledger = ledger;
        this.loadVia = loadVia;
    }

    /**
     * From now on, reads every ExecutionCompleted on the events topic into the ledger, for the restart phase. Before the
     * warm-up, so that no ending of an execution the windows start is missed.
     */
    void watch() {
        watcher = new ChaosWatcher(bootstrapServers, topics, ledger);
    }

    /** The load started {@code executionId}: counted once its window began (not in the warm-up). */
    void started(String executionId) {
        String phase = ledger.phase();
        if (phase != null) {
            ledger.accepted(executionId, phase, loadVia, System.nanoTime());
        }
    }

    /** The measurement window {@code index} begins: the clean one, then the poisoned one, which starts the strike. */
    void windowStarting(int index) {
        ledger.phase(index == 0 ? CLEAN : POISONED);
        if (index == 1) {
            strike();
        }
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
            String id = execution.path("id").asText("");
            if (!id.isEmpty()) {
                ledger.accepted(id, POISONED, ChaosLedger.Via.REST, System.nanoTime());
                if (TERMINAL.contains(state)) {
                    ended.add(new PoisonRestart.Ended(poison.flowId(), id, state));
                }
            }
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

    /**
     * The restart phase, once {@link #checks()} has every poison execution's answer: against {@code engine} when the
     * bench started it, else skipped. Needs {@link #watch()} before the windows.
     */
    List<Check> restart(EngineProcess engine, boolean exactlyOnce, Consumer<String> out) throws InterruptedException {
        if (engine == null || watcher == null) {
            return List.of(PoisonRestart.skipped());
        }
        return PoisonRestart.run(engine, ledger, List.copyOf(ended), exactlyOnce, this::states, out);
    }

    /** What the engine at {@code engineApi} answers for an execution: its state, or the HTTP status, or the error. */
    private PoisonRestart.States states(URI engineApi) {
        String base = engineApi.toString().replaceAll("/+$", "");
        return executionId -> {
            try {
                HttpResponse<String> response = http.send(RestStarter.authorized(HttpRequest.newBuilder(URI.create(
                        base + "/executions/" + executionId)), token).timeout(Duration.ofSeconds(30)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                return response.statusCode() == 200
                        ? Json.MAPPER.readTree(response.body()).at("/state/current").asText("no state")
                        : "HTTP " + response.statusCode();
            } catch (Exception e) {
                return e.toString();
            }
        };
    }

    @Override
    public void close() throws InterruptedException {
        if (watcher != null) {
            watcher.close();
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
                    c.seconds() == 0 ? "" : String.format(Locale.ROOT, "%.1f s", c.seconds()), Check.SKIPPED.equals(c.outcome()) ? "skipped" : c.passed() ? "yes" : "**no**",
                    detail.length() > 200 ? detail.substring(0, 200) + "…" : detail));
        }
        return md.toString();
    }

    static void write(Path results, List<Check> checks) throws Exception {
        Files.writeString(results.resolve("poison.md"), markdown(checks), StandardCharsets.UTF_8);
    }
}
