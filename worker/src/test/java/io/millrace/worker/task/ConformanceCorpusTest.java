package io.millrace.worker.task;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.millrace.core.execution.State;
import io.millrace.core.expression.Variables;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Runs flat corpus flows (only runnable tasks, in order, no engine) through the tasks and checks what
 * expected.json asserts about them: state, task-run count, task-run states and outputs. Assertion kinds this test
 * does not know make it fail, so a richer corpus cannot be silently half-checked.
 */
class ConformanceCorpusTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> KNOWN_EXPECTATIONS = Set.of("state", "taskRunCount", "taskRunList", "taskRuns", "taskRunStates");

    private static ConformanceCorpus corpus;

    private record Run(String taskId, TaskOutcome outcome) {
    }

    @BeforeAll
    static void locateCorpus() throws Exception {
        corpus = ConformanceCorpus.locate();
    }

    @ParameterizedTest
    @ValueSource(strings = {"return", "output-values", "all_json", "transform-value-nested-array", "sleep-task-flow",
            "fail-on-condition"})
    void shouldProduceTheOutputsKestraAsserts(String flowKey) throws Exception {
        runCases(flowKey, Map.of());
    }

    /** The Request tasks of Kestra's RequestTest, against a local server that keeps its mock's contract. */
    @Test
    void shouldAnswerKestrasMockServerAsKestraAsserts() throws Exception {
        // given
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/hello", exchange -> reply(exchange, 200, "{ \"hello\": \"world\" }"));
        server.createContext("/hello417", exchange -> reply(exchange, 417, "{ \"hello\": \"world\" }"));
        server.createContext("/post/simple", exchange -> {
            String form = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String hello = form.startsWith("hello=") ? URLDecoder.decode(form.substring("hello=".length()), StandardCharsets.UTF_8) : null;
            reply(exchange, 200, hello + " > " + exchange.getRequestHeaders().getFirst("test"));
        });
        server.start();
        try {
            // when / then
            runCases("http-request-local", Map.of("base_url", "http://127.0.0.1:" + server.getAddress().getPort()));
        } finally {
            server.stop(0);
        }
    }

    private static void reply(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @SuppressWarnings("unchecked")
    private static void runCases(String flowKey, Map<String, Object> inputOverrides) throws Exception {
        // given
        JsonNode flow = corpus.flow(flowKey);
        Map<String, Object> yaml = corpus.flowYaml(flow);
        assertThat(flow.path("cases").size()).as("cases of %s", flowKey).isPositive();

        for (JsonNode testCase : flow.path("cases")) {
            Map<String, Object> inputs = new LinkedHashMap<>(JSON.convertValue(testCase.path("inputs"), Map.class));
            inputs.putAll(inputOverrides);

            // when
            List<Run> runs = runSequentially(yaml, inputs);

            // then
            String label = flowKey + "/" + testCase.path("name").asText();
            if (!"FAILED".equals(testCase.path("expected").path("state").asText())) {
                for (Run run : runs) {
                    assertThat(run.outcome().error()).as("%s task %s", label, run.taskId()).isNull();
                }
            }
            check(label, testCase.path("expected"), runs);
        }
    }

    /** Runs the tasks in order, as Kestra runs a flat flow: inputs take their defaults, and a failed task ends the run. */
    @SuppressWarnings("unchecked")
    private static List<Run> runSequentially(Map<String, Object> yaml, Map<String, Object> inputs) throws InterruptedException {
        Map<String, Object> withDefaults = new LinkedHashMap<>(inputs);
        for (Map<String, Object> input : (List<Map<String, Object>>) yaml.getOrDefault("inputs", List.of())) {
            if (input.get("defaults") != null) {
                withDefaults.putIfAbsent((String) input.get("id"), input.get("defaults"));
            }
        }
        Instant now = Instant.now();
        Variables.Builder vars = Variables.builder()
                .execution("corpus-execution", now)
                .flow((String) yaml.get("namespace"), (String) yaml.get("id"), 1)
                .inputs(withDefaults);
        Map<String, Map<String, Object>> outputs = new LinkedHashMap<>();
        List<Run> runs = new ArrayList<>();
        for (Map<String, Object> task : ConformanceCorpus.tasks(yaml)) {
            Map<String, Object> props = new LinkedHashMap<>(task);
            String id = (String) props.remove("id");
            String type = (String) props.remove("type");
            RunnableTask runnable = TaskRegistry.standard().find(type)
                    .orElseThrow(() -> new AssertionError("task '" + id + "' of type " + type + " needs the engine; not a flat flow"));
            Map<String, Object> variables = vars.outputs(outputs).task(id, type).taskRun("taskrun-" + id, Instant.now(), 1).build();
            TaskOutcome outcome = runnable.execute(new TaskInvocation(id, type, props, variables, Invocations.EXPRESSIONS, new RecordingLogger()));
            runs.add(new Run(id, outcome));
            outputs.put(id, outcome.outputs());
            if (outcome.state() == State.FAILED) {
                break;
            }
        }
        return runs;
    }

    private static void check(String label, JsonNode expected, List<Run> runs) throws Exception {
        for (Iterator<String> names = expected.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!KNOWN_EXPECTATIONS.contains(name)) {
                fail("%s: expected.json asserts '%s', which this test does not check; extend it", label, name);
            }
        }
        if (expected.has("state")) {
            State state = State.valueOf(expected.path("state").asText());
            State actual = runs.stream().anyMatch(r -> r.outcome().state() == State.FAILED) ? State.FAILED
                    : runs.stream().anyMatch(r -> r.outcome().state() == State.WARNING) ? State.WARNING : State.SUCCESS;
            assertThat(actual).as("%s state", label).isEqualTo(state);
        }
        if (expected.has("taskRunCount")) {
            assertThat(runs).as("%s task runs", label).hasSize(expected.path("taskRunCount").asInt());
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = expected.path("taskRunStates").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            Run run = runs.stream().filter(r -> r.taskId().equals(entry.getKey())).findFirst()
                    .orElseThrow(() -> new AssertionError(label + ": no run of task " + entry.getKey()));
            assertThat(run.outcome().state().name()).as("%s state of %s", label, entry.getKey()).isEqualTo(entry.getValue().asText());
        }
        for (JsonNode entry : expected.path("taskRunList")) {
            Run run = runs.get(entry.path("index").asInt());
            assertThat(run.taskId()).as("%s taskRunList[%s]", label, entry.path("index")).isEqualTo(entry.path("taskId").asText());
            checkRun(label + " taskRunList[" + entry.path("index") + "]", entry, run);
        }
        for (JsonNode entry : expected.path("taskRuns")) {
            String taskId = entry.path("taskId").asText();
            Run run = runs.stream().filter(r -> r.taskId().equals(taskId)).findFirst()
                    .orElseThrow(() -> new AssertionError(label + ": no run of task " + taskId));
            checkRun(label + " " + taskId, entry, run);
        }
    }

    private static void checkRun(String label, JsonNode entry, Run run) throws Exception {
        for (Iterator<String> names = entry.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!Set.of("index", "taskId", "outputs", "state").contains(name)) {
                fail("%s: expected.json asserts '%s', which this test does not check; extend it", label, name);
            }
        }
        if (entry.has("state")) {
            assertThat(run.outcome().state().name()).as("%s state", label).isEqualTo(entry.path("state").asText());
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = entry.path("outputs").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> output = it.next();
            Object actual = resolve(run.outcome().outputs(), output.getKey());
            match(label + " outputs." + output.getKey(), actual, output.getValue());
        }
    }

    /** A dotted path into the outputs; a last step "x_as_json" means x printed as compact JSON. */
    private static Object resolve(Map<String, Object> outputs, String path) throws Exception {
        boolean asJson = path.endsWith("_as_json");
        Object current = outputs;
        for (String step : (asJson ? path.substring(0, path.length() - "_as_json".length()) : path).split("\\.")) {
            if (!(current instanceof Map<?, ?> map) || !map.containsKey(step)) {
                throw new AssertionError("no output at '" + path + "' in " + outputs);
            }
            current = map.get(step);
        }
        return asJson ? JSON.writeValueAsString(current) : current;
    }

    private static void match(String label, Object actual, JsonNode matchers) throws Exception {
        for (Iterator<Map.Entry<String, JsonNode>> it = matchers.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> matcher = it.next();
            JsonNode expected = matcher.getValue();
            switch (matcher.getKey()) {
                case "equals" -> assertThat(json(actual)).as(label).isEqualTo(expected);
                case "contains" -> assertThat(String.valueOf(actual)).as(label).contains(expected.asText());
                case "regex" -> assertThat(Pattern.compile(expected.asText()).matcher(String.valueOf(actual)).find()).as(label + " ~ " + expected).isTrue();
                case "fullmatch" -> assertThat(String.valueOf(actual)).as(label).matches(expected.asText());
                case "hasItems" -> {
                    List<JsonNode> items = new ArrayList<>();
                    json(actual).forEach(items::add);
                    expected.forEach(item -> assertThat(items).as(label).contains(item));
                }
                case "iso_datetime_within_seconds_of_now" -> assertThat(Duration.between(Instant.parse(String.valueOf(actual)), Instant.now()).abs())
                        .as(label).isLessThanOrEqualTo(Duration.ofSeconds(expected.asLong()));
                default -> fail("%s: unknown matcher '%s'", label, matcher.getKey());
            }
        }
    }

    /** Normalises a Java value to the JsonNode types expected.json parses to (Long 5 and int 5 compare equal). */
    private static JsonNode json(Object value) throws Exception {
        return JSON.readTree(JSON.writeValueAsString(value));
    }
}
