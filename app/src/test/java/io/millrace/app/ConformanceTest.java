package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.worker.task.ConformanceCorpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every flow of the Kestra conformance corpus through the real engine (executor, worker and gateway on the
 * shared broker), over the REST API, with every assertion of expected.json checked. How it works, how to
 * run it and what the bar is: docs/CONFORMANCE.md. The table goes to stdout and to target/conformance.md.
 */
class ConformanceTest {

    /**
     * Cases that do not pass, keyed "flow / case", each with why; docs/CONFORMANCE.md explains each one. Every other
     * case must pass. A case listed here that passes is reported, to be removed.
     */
    static final Map<String, String> EXPECTED_TO_FAIL = Map.ofEntries(
            Map.entry("allow-failure / no input", "Kestra's test started it without input validation; Millrace "
                    + "validates the inputs of every start, so the required input 'crash' is refused"));

    private static final int CONCURRENT_CASES = 8;
    private static final Path REPORT = Path.of("target", "conformance.md");

    @TempDir
    static Path stateDir;

    private static ConformanceCorpus corpus;
    private static KestraRequestTestServer localServer;
    private static Engine engine;

    /** One case's outcome and the bar its flow is held to. */
    private record Outcome(ConformanceCase testCase, String bar, Findings findings) {
        ConformanceReport.Row row() {
            return new ConformanceReport.Row(testCase.flowKey(), testCase.name(), bar, findings.result(), findings.first());
        }
    }

    @BeforeAll
    static void startEngine() throws Exception {
        corpus = ConformanceCorpus.locate();
        localServer = KestraRequestTestServer.start();
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("conformance", stateDir, "port", "0"), null);
        engine = Engine.start(config);
    }

    @AfterAll
    static void stopEngine() {
        if (engine != null) {
            engine.close();
        }
        if (localServer != null) {
            localServer.close();
        }
    }

    @Test
    void shouldPassEveryCorpusFlowOutsidePart2AndTheExpectedToFailList() throws Exception {
        // given: every corpus file posted once; a refusal is kept as the reason its cases fail
        long started = System.nanoTime();
        var api = new ConformanceApi(engine.port());
        Map<String, String> refusals = postEveryFlow(api);

        // when
        List<Outcome> outcomes = runEveryCase(api, refusals);

        // then
        List<ConformanceReport.Row> rows = outcomes.stream().map(Outcome::row).toList();
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        List<String> prune = expectedToFailButPassing(outcomes);
        report(rows, prune, took);
        assertThat(problems(outcomes)).as("conformance problems (table in %s)", REPORT.toAbsolutePath()).isEmpty();
    }

    private static Map<String, String> postEveryFlow(ConformanceApi api) throws IOException, InterruptedException {
        var files = new LinkedHashSet<String>();
        corpus.expected.path("flows").forEach(flow -> {
            flow.path("requires_flows").forEach(required -> files.add(required.asText()));
            files.add(flow.path("file").asText());
        });
        var refusals = new LinkedHashMap<String, String>();
        for (String file : files) {
            ConformanceApi.Reply reply = api.postFlow(corpus.source(file));
            if (reply.status() != 200) {
                refusals.put(file, reply.status() + " " + reply.message());
            }
        }
        return refusals;
    }

    private static List<Outcome> runEveryCase(ConformanceApi api, Map<String, String> refusals) throws Exception {
        var tasks = new ArrayList<Callable<Outcome>>();
        for (var flows = corpus.expected.path("flows").properties().iterator(); flows.hasNext(); ) {
            var entry = flows.next();
            JsonNode flow = entry.getValue();
            FlowShape shape = FlowShape.of(corpus.flowYaml(flow));
            for (JsonNode testCase : flow.path("cases")) {
                String key = entry.getKey() + " / " + testCase.path("name").asText();
                String bar = EXPECTED_TO_FAIL.containsKey(key) ? "expected to fail: " + EXPECTED_TO_FAIL.get(key)
                        : "must pass";
                var conformanceCase = new ConformanceCase(entry.getKey(), flow, testCase, shape, refusals, localServer.baseUrl());
                tasks.add(() -> new Outcome(conformanceCase, bar, runSafely(conformanceCase, api)));
            }
        }
        var outcomes = new ArrayList<Outcome>();
        try (ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT_CASES)) {
            for (Future<Outcome> outcome : pool.invokeAll(tasks)) {
                outcomes.add(outcome.get());
            }
        }
        return outcomes;
    }

    private static Findings runSafely(ConformanceCase conformanceCase, ConformanceApi api) {
        try {
            return conformanceCase.run(api);
        } catch (Exception | AssertionError e) {
            var findings = new Findings();
            findings.deviation("runner error: " + e);
            return findings;
        }
    }

    /** Failing cases of must-pass flows, unknown assertions anywhere, and stale entries of EXPECTED_TO_FAIL. */
    private static List<String> problems(List<Outcome> outcomes) {
        var problems = new ArrayList<String>();
        for (Outcome outcome : outcomes) {
            String label = key(outcome);
            if (outcome.bar().equals("must pass") && outcome.findings().result() != Findings.Result.PASS) {
                problems.add(label + " (" + outcome.findings().result() + "):\n    " + String.join("\n    ", outcome.findings().all()));
            } else {
                outcome.findings().unknown().forEach(u -> problems.add(label + ": unknown assertion " + u + "; teach the runner"));
            }
        }
        EXPECTED_TO_FAIL.keySet().forEach(key -> {
            boolean listed = outcomes.stream().anyMatch(o -> key(o).equals(key) && o.bar().startsWith("expected"));
            if (!listed) {
                problems.add("EXPECTED_TO_FAIL names '" + key + "', which is no corpus case; remove it");
            }
        });
        return problems;
    }

    private static List<String> expectedToFailButPassing(List<Outcome> outcomes) {
        return outcomes.stream()
                .filter(o -> EXPECTED_TO_FAIL.containsKey(key(o)) && o.findings().result() == Findings.Result.PASS)
                .map(ConformanceTest::key).sorted().toList();
    }

    private static String key(Outcome outcome) {
        return outcome.testCase().flowKey() + " / " + outcome.testCase().name();
    }

    private static void report(List<ConformanceReport.Row> rows, List<String> prune, Duration took) throws IOException {
        String summary = ConformanceReport.summary(rows) + " (" + took.toSeconds() + " s, " + LocalDate.now() + ")";
        String pruneNote = prune.isEmpty() ? ""
                : "Expected to fail but passing now; remove from ConformanceTest.EXPECTED_TO_FAIL: " + String.join(", ", prune) + "\n";
        System.out.println("\nKestra conformance corpus: " + summary + "\n" + ConformanceReport.plain(rows) + pruneNote);
        Files.createDirectories(REPORT.getParent());
        Files.writeString(REPORT, "# Kestra conformance corpus\n\n" + summary + "\n\n" + ConformanceReport.markdown(rows)
                + (pruneNote.isEmpty() ? "" : "\n" + pruneNote));
    }
}
