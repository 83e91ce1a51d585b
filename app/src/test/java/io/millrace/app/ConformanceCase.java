package io.millrace.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.millrace.serdes.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One case of one corpus flow, run through the engine's REST API: start the execution with the case's inputs
 * and labels, perform its actions, then check its {@code expected} block.
 *
 * @param refusals why the engine refused a corpus file at {@code POST /flows}, by file; absent when it took it
 * @param localServer the base URL of the stand-in HTTP server, for inputs that name {@code <port of local mock>}
 */
record ConformanceCase(String flowKey, JsonNode flow, JsonNode testCase, FlowShape shape, Map<String, String> refusals,
        String localServer) {

    static final Duration TERMINAL_WITHIN = Duration.ofSeconds(60);
    /** How long log lines may trail the execution's end. */
    static final Duration LOGS_WITHIN = Duration.ofSeconds(10);
    private static final Duration STATE_WITHIN = Duration.ofSeconds(30);
    private static final Set<String> CASE_KEYS = Set.of("name", "asserted_by", "inputs", "inputs_mode", "expected",
            "confidence", "derived_from_yaml_not_asserted", "notes", "actions", "execution_labels");
    private static final Set<String> ACTION_KEYS = Set.of("wait_until_state", "expect", "wait", "resume");
    static final Set<String> TERMINAL = Set.of("SUCCESS", "WARNING", "FAILED", "KILLED", "CANCELLED", "SKIPPED", "RETRIED");

    String name() {
        return testCase.path("name").asText();
    }

    Findings run(ConformanceApi api) throws IOException, InterruptedException {
        var findings = new Findings();
        List<JsonNode> actions = new ArrayList<>();
        testCase.path("actions").forEach(actions::add);
        vet(actions, findings);
        if (refused(findings)) {
            return findings;
        }
        Optional<JsonNode> execution = actions.isEmpty() ? startAndWait(api, findings) : startAndAct(api, actions, findings);
        execution.ifPresent(e -> ExecutionExpectations.check(subject(api, e, findings), testCase.path("expected")));
        return findings;
    }

    /** Unknown case properties, actions and assertions, whether or not the flow can run. */
    private void vet(List<JsonNode> actions, Findings findings) {
        testCase.fieldNames().forEachRemaining(key -> {
            if (!CASE_KEYS.contains(key)) {
                findings.unknown("case property '" + key + "'");
            }
        });
        for (JsonNode action : actions) {
            action.fieldNames().forEachRemaining(key -> {
                if (!ACTION_KEYS.contains(key)) {
                    findings.unknown("action '" + key + "'");
                }
            });
            ExecutionExpectations.vet(action.path("expect"), findings);
        }
        ExecutionExpectations.vet(testCase.path("expected"), findings);
    }

    private boolean refused(Findings findings) {
        String own = flow.path("file").asText();
        if (refusals.containsKey(own)) {
            findings.refused("flow refused: " + refusals.get(own));
            return true;
        }
        for (JsonNode required : flow.path("requires_flows")) {
            if (refusals.containsKey(required.asText())) {
                findings.refused("required flow " + required.asText() + " refused: " + refusals.get(required.asText()));
                return true;
            }
        }
        return false;
    }

    private Optional<JsonNode> startAndWait(ConformanceApi api, Findings findings) throws IOException, InterruptedException {
        ConformanceApi.Reply reply = api.start(namespace(), flowId(), startBody(), TERMINAL_WITHIN);
        if (reply.status() == 202) {
            findings.deviation("state: expected a terminal state within " + TERMINAL_WITHIN.toSeconds() + " s, but it is still "
                    + reply.body().at("/state/current").asText());
            return Optional.empty();
        }
        return started(reply, findings);
    }

    private Optional<JsonNode> startAndAct(ConformanceApi api, List<JsonNode> actions, Findings findings)
            throws IOException, InterruptedException {
        Optional<JsonNode> created = started(api.start(namespace(), flowId(), startBody(), null), findings);
        if (created.isEmpty()) {
            return created;
        }
        String id = created.get().path("id").asText();
        for (JsonNode action : actions) {
            if (action.has("resume")) {
                ConformanceApi.Reply reply = api.resume(id, action.path("resume").path("inputs"));
                if (reply.status() != 204) {
                    findings.deviation("resume: expected 204, but the API answered " + reply.status() + ": "
                            + reply.message());
                    api.kill(id);
                    return Optional.empty();
                }
            }
            if (action.has("wait_until_state")) {
                String wanted = action.path("wait_until_state").asText();
                JsonNode now = api.await(id, e -> wanted.equals(state(e)) || TERMINAL.contains(state(e)), STATE_WITHIN);
                if (!wanted.equals(state(now))) {
                    findings.deviation("wait_until_state: expected " + wanted + ", but was " + state(now));
                    return Optional.empty();
                }
                if (action.has("expect")) {
                    ExecutionExpectations.check(subject(api, now, findings), action.path("expect"));
                }
            }
            // "wait" describes time passing (a delay, a timeout); waiting for the terminal state below covers it.
        }
        JsonNode last = api.await(id, e -> TERMINAL.contains(state(e)), TERMINAL_WITHIN);
        if (!TERMINAL.contains(state(last))) {
            findings.deviation("state: expected a terminal state within " + TERMINAL_WITHIN.toSeconds() + " s, but it is still "
                    + state(last));
            return Optional.empty();
        }
        return Optional.of(last);
    }

    private static Optional<JsonNode> started(ConformanceApi.Reply reply, Findings findings) {
        if (reply.status() != 200) {
            findings.deviation("start: expected the execution to start, but the API answered " + reply.status() + ": "
                    + reply.message());
            return Optional.empty();
        }
        return Optional.of(reply.body());
    }

    private ExecutionExpectations.Subject subject(ConformanceApi api, JsonNode execution, Findings findings) {
        Supplier<List<JsonNode>> children = memoize(() -> children(api, execution));
        Supplier<List<JsonNode>> descendants = memoize(() -> {
            var all = new ArrayList<JsonNode>();
            for (var queue = new ArrayList<>(children.get()); !queue.isEmpty(); ) {
                JsonNode next = queue.removeFirst();
                all.add(next);
                queue.addAll(children(api, next));
            }
            return all;
        });
        return new ExecutionExpectations.Subject(execution, new TaskRuns(execution, shape.loopTaskIds()), children, descendants,
                done -> logs(api, execution.path("id").asText(), done),
                done -> poll(() -> api.executionsOf(execution.path("namespace").asText(), execution.path("flowId").asText()),
                        done, "the executions of " + execution.path("flowId").asText(), TERMINAL_WITHIN), findings);
    }

    /** Polls the execution's log lines until {@code done} holds for them or {@link #LOGS_WITHIN} passes. */
    private static List<JsonNode> logs(ConformanceApi api, String executionId, Predicate<List<JsonNode>> done) {
        return poll(() -> api.logs(executionId), done, "the logs of " + executionId, LOGS_WITHIN);
    }

    /** A read of the API that may come too soon. */
    @FunctionalInterface
    private interface Read {
        List<JsonNode> get() throws IOException, InterruptedException;
    }

    /** Reads until {@code done} holds for what is read or {@code within} passes. */
    private static List<JsonNode> poll(Read read, Predicate<List<JsonNode>> done, String what, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        try {
            while (true) {
                List<JsonNode> found = read.get();
                if (done.test(found) || System.nanoTime() > deadline) {
                    return found;
                }
                Thread.sleep(100);
            }
        } catch (IOException e) {
            throw new IllegalStateException("Reading " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The executions this one started: those named by a task run's {@code executionId} output (Kestra's Subflow). */
    private static List<JsonNode> children(ConformanceApi api, JsonNode execution) {
        var children = new ArrayList<JsonNode>();
        for (JsonNode run : execution.path("taskRunList")) {
            JsonNode id = run.at("/outputs/executionId");
            if (id.isTextual()) {
                try {
                    api.execution(id.asText()).ifPresent(children::add);
                } catch (IOException e) {
                    throw new IllegalStateException("Reading child execution " + id.asText(), e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        return children;
    }

    /** {"inputs": ..., "labels": ...}; an input naming {@code <port of local mock>} points at the stand-in server. */
    private ObjectNode startBody() {
        ObjectNode body = Json.MAPPER.createObjectNode();
        ObjectNode inputs = body.putObject("inputs");
        testCase.path("inputs").properties().forEach(e -> inputs.set(e.getKey(), e.getValue().isTextual()
                ? TextNode.valueOf(e.getValue().asText().replace("http://127.0.0.1:<port of local mock>", localServer))
                : e.getValue()));
        if (testCase.has("execution_labels")) {
            body.set("labels", testCase.path("execution_labels"));
        }
        return body;
    }

    private String namespace() {
        return flow.path("namespace").asText();
    }

    private String flowId() {
        return flow.path("flow_id").asText();
    }

    private static String state(JsonNode execution) {
        return execution.at("/state/current").asText();
    }

    private static <T> Supplier<T> memoize(Supplier<T> supplier) {
        return new Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) {
                    value = supplier.get();
                }
                return value;
            }
        };
    }
}
