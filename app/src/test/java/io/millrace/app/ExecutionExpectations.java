package io.millrace.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Checks the {@code expected} block of a corpus case (or an action's {@code expect}) against an execution as
 * {@code GET /api/v1/executions/{id}} shows it. One check per assertion kind, registered by its name in
 * expected.json; {@link #vet} reports what is not registered as an unknown assertion.
 */
final class ExecutionExpectations {

    /** The execution under check and what checks need beside it. */
    record Subject(JsonNode execution, TaskRuns runs, Supplier<List<JsonNode>> children,
            Supplier<List<JsonNode>> descendants, Logs logs, Logs flowExecutions, Findings findings) {

        boolean isChild(String executionId) {
            return children.get().stream().anyMatch(c -> executionId.equals(c.path("id").asText()));
        }
    }

    /**
     * The execution's log lines (or the executions of its flow) once {@code done} holds for them, or as they are when
     * a few seconds passed.
     */
    @FunctionalInterface
    interface Logs {
        List<JsonNode> await(Predicate<List<JsonNode>> done);
    }

    @FunctionalInterface
    private interface Check {
        void apply(Subject subject, JsonNode expected);
    }

    private static final Map<String, Check> CHECKS = Map.ofEntries(
            Map.entry("state", ExecutionExpectations::state),
            Map.entry("taskRunCount", ExecutionExpectations::taskRunCount),
            Map.entry("taskRunStates", ExecutionExpectations::taskRunStates),
            Map.entry("taskRunList", ExecutionExpectations::taskRunList),
            Map.entry("taskRuns", ExecutionExpectations::taskRuns),
            Map.entry("attempts", ExecutionExpectations::attempts),
            Map.entry("taskRunStateHistoryCounts", ExecutionExpectations::stateHistoryCounts),
            Map.entry("executionOutputs", ExecutionExpectations::executionOutputs),
            Map.entry("executionOutputsTree", ExecutionExpectations::executionOutputsTree),
            Map.entry("absentTaskIds", ExecutionExpectations::absentTaskIds),
            Map.entry("ordering", ExecutionExpectations::ordering),
            Map.entry("relations", ExecutionExpectations::relations),
            Map.entry("childExecution", ExecutionExpectations::childExecution),
            Map.entry("childExecutions", ExecutionExpectations::childExecutions),
            Map.entry("logs", ExecutionExpectations::logs),
            Map.entry("terminalExecutionsOfThisFlow_anyOrder", ExecutionExpectations::terminalExecutionsOfThisFlow));

    private static final Set<String> TASK_RUN_LIST_KEYS = Set.of("index", "taskId", "state", "attemptCount", "outputs");
    private static final Set<String> TASK_RUNS_KEYS = Set.of("taskId", "value_path", "outputs", "attempts", "attemptState");
    private static final Set<String> LOGS_KEYS = Set.of("equals", "contains", "count");
    private static final Set<String> CHILD_KEYS = Set.of("flowId", "state", "taskRunCount", "trigger", "labels_size", "labels");

    private ExecutionExpectations() {
    }

    /**
     * Records, as unknown, every assertion kind, sub-key, matcher or sentence of {@code expected} this runner
     * does not know; runs before any execution exists, so a refused flow's assertions are vetted too.
     */
    static void vet(JsonNode expected, Findings findings) {
        expected.properties().forEach(entry -> {
            String kind = entry.getKey();
            JsonNode value = entry.getValue();
            if (!CHECKS.containsKey(kind)) {
                findings.unknown("'" + kind + "'");
                return;
            }
            switch (kind) {
                case "taskRunList" -> value.forEach(e -> vetEntry("taskRunList", e, TASK_RUN_LIST_KEYS, findings));
                case "taskRuns" -> value.forEach(e -> vetEntry("taskRuns", e, TASK_RUNS_KEYS, findings));
                case "childExecution" -> vetEntry(kind, value, CHILD_KEYS, findings);
                case "logs" -> value.forEach(e -> vetEntry(kind, e, LOGS_KEYS, findings));
                case "childExecutions" -> value.forEach(e -> vetEntry(kind, e, CHILD_KEYS, findings));
                case "executionOutputs" -> {
                    if (value.isObject()) {
                        ObjectNode matchers = ((ObjectNode) value).deepCopy();
                        matchers.remove("_size");
                        OutputMatchers.vet(kind, matchers, findings);
                    } else if (!value.isNull()) {
                        findings.unknown(kind + " " + value);
                    }
                }
                case "ordering" -> value.forEach(sentence -> {
                    if (CorpusPhrases.ordering(sentence.asText()).isEmpty()) {
                        findings.unknown("ordering '" + sentence.asText() + "'");
                    }
                });
                case "relations" -> value.forEach(sentence -> {
                    if (CorpusPhrases.relation(sentence.asText()).isEmpty()) {
                        findings.unknown("relation '" + sentence.asText() + "'");
                    }
                });
                default -> {
                    // maps of task id to a value: nothing more to know
                }
            }
        });
    }

    /** Checks every known assertion of {@code expected}; {@link #vet} reports the others. */
    static void check(Subject subject, JsonNode expected) {
        expected.properties().forEach(entry -> {
            Check check = CHECKS.get(entry.getKey());
            if (check != null) {
                check.apply(subject, entry.getValue());
            }
        });
    }

    private static void vetEntry(String where, JsonNode entry, Set<String> known, Findings findings) {
        entry.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                findings.unknown(where + ": '" + name + "'");
            }
        });
        OutputMatchers.vet(where + " '" + entry.path("taskId").asText() + "'.outputs", entry.path("outputs"), findings);
    }

    /** A wrong state carries the execution's {@code error}, which names the task and its reason. */
    private static void state(Subject s, JsonNode expected) {
        String actual = s.execution().at("/state/current").asText();
        JsonNode error = s.execution().path("error");
        s.findings().expect("state", expected.asText(), error.isTextual() && !expected.asText().equals(actual)
                ? actual + " (" + error.asText() + ")"
                : actual);
    }

    /** The terminal states of every execution of the flow (a retry as a new execution makes several), in any order. */
    private static void terminalExecutionsOfThisFlow(Subject s, JsonNode expected) {
        var wanted = new ArrayList<String>();
        expected.forEach(state -> wanted.add(state.asText()));
        List<JsonNode> executions = s.flowExecutions().await(all -> terminalStates(all).size() >= wanted.size()
                && all.stream().allMatch(e -> ConformanceCase.TERMINAL.contains(e.at("/state/current").asText())));
        List<String> actual = terminalStates(executions);
        s.findings().expect("terminalExecutionsOfThisFlow_anyOrder", wanted.stream().sorted().toList().toString(),
                actual.stream().sorted().toList().toString());
    }

    private static List<String> terminalStates(List<JsonNode> executions) {
        return executions.stream().map(e -> e.at("/state/current").asText())
                .filter(ConformanceCase.TERMINAL::contains).toList();
    }

    /**
     * Each entry names a message: {@code equals} (some line's message is exactly it), or {@code contains} with a
     * {@code count} (that many lines' messages contain it). Lines arrive apart from the execution: wait for them.
     */
    private static void logs(Subject s, JsonNode expected) {
        for (JsonNode entry : expected) {
            if (entry.has("equals")) {
                String wanted = entry.path("equals").asText();
                List<JsonNode> lines = s.logs().await(all -> all.stream().anyMatch(l -> wanted.equals(message(l))));
                if (lines.stream().noneMatch(l -> wanted.equals(message(l)))) {
                    s.findings().expect("logs: a line equal to '" + wanted + "'", wanted,
                            "none, among " + lines.stream().map(ExecutionExpectations::message).toList());
                }
            } else {
                String part = entry.path("contains").asText();
                int count = entry.path("count").asInt(1);
                List<JsonNode> lines = s.logs().await(all -> matching(all, part) >= count);
                s.findings().expect("logs: lines containing '" + part + "'", count, (int) matching(lines, part));
            }
        }
    }

    private static long matching(List<JsonNode> lines, String part) {
        return lines.stream().filter(l -> message(l).contains(part)).count();
    }

    private static String message(JsonNode line) {
        return line.path("message").asText();
    }

    private static void taskRunCount(Subject s, JsonNode expected) {
        s.findings().expect("taskRunCount", expected.asInt(), s.runs().size());
    }

    private static void taskRunStates(Subject s, JsonNode expected) {
        expected.properties().forEach(e -> firstRun(s, "taskRunStates." + e.getKey(), e.getKey()).ifPresent(run ->
                s.findings().expect("taskRunStates." + e.getKey(), e.getValue().asText(), run.at("/state/current").asText())));
    }

    private static void taskRunList(Subject s, JsonNode expected) {
        for (JsonNode entry : expected) {
            int index = entry.path("index").asInt();
            String where = "taskRunList[" + index + "]";
            if (index >= s.runs().size()) {
                s.findings().deviation(where + ": expected task '" + entry.path("taskId").asText() + "', but there are "
                        + s.runs().size() + " task runs");
                continue;
            }
            JsonNode run = s.runs().get(index);
            if (!entry.path("taskId").asText().equals(run.path("taskId").asText())) {
                s.findings().expect(where + ".taskId", entry.path("taskId").asText(), run.path("taskId").asText());
                continue;
            }
            if (entry.has("state")) {
                s.findings().expect(where + ".state", entry.path("state").asText(), run.at("/state/current").asText());
            }
            if (entry.has("attemptCount")) {
                s.findings().expect(where + ".attemptCount", entry.path("attemptCount").asInt(), run.path("attempts").size());
            }
            OutputMatchers.check(where + ".outputs", run.path("outputs"), entry.path("outputs"), s::isChild, s.findings());
        }
    }

    private static void taskRuns(Subject s, JsonNode expected) {
        for (JsonNode entry : expected) {
            String taskId = entry.path("taskId").asText();
            Optional<JsonNode> found;
            String where;
            if (entry.has("value_path")) {
                List<String> path = new ArrayList<>();
                entry.path("value_path").forEach(v -> path.add(v.asText()));
                where = taskId + path;
                found = s.runs().find(taskId, path);
                if (found.isEmpty()) {
                    s.findings().deviation(where + ": expected a task run of '" + taskId + "' at value path " + path
                            + ", but there is none");
                }
            } else {
                where = taskId;
                found = firstRun(s, where, taskId);
            }
            found.ifPresent(run -> {
                if (entry.has("attempts")) {
                    s.findings().expect(where + ".attempts", entry.path("attempts").asInt(), run.path("attempts").size());
                }
                if (entry.has("attemptState")) {
                    JsonNode attempts = run.path("attempts");
                    String last = attempts.isEmpty() ? "no attempt" : attempts.get(attempts.size() - 1).at("/state/current").asText();
                    s.findings().expect(where + ".attemptState", entry.path("attemptState").asText(), last);
                }
                OutputMatchers.check(where + ".outputs", run.path("outputs"), entry.path("outputs"), s::isChild, s.findings());
            });
        }
    }

    private static void attempts(Subject s, JsonNode expected) {
        expected.properties().forEach(e -> firstRun(s, "attempts." + e.getKey(), e.getKey()).ifPresent(run ->
                s.findings().expect("attempts." + e.getKey(), e.getValue().asInt(), run.path("attempts").size())));
    }

    private static void stateHistoryCounts(Subject s, JsonNode expected) {
        expected.properties().forEach(e -> firstRun(s, "taskRunStateHistoryCounts." + e.getKey(), e.getKey()).ifPresent(run -> {
            var counts = new HashMap<String, Integer>();
            run.at("/state/histories").forEach(h -> counts.merge(h.path("state").asText(), 1, Integer::sum));
            e.getValue().properties().forEach(c -> s.findings().expect("taskRunStateHistoryCounts." + e.getKey() + "." + c.getKey(),
                    c.getValue().asInt(), counts.getOrDefault(c.getKey(), 0)));
        }));
    }

    /** {@code null}: no flow outputs (absent, null or empty, as Kestra omits empty outputs); else {@code _size} and matchers. */
    private static void executionOutputs(Subject s, JsonNode expected) {
        JsonNode outputs = s.execution().path("outputs");
        boolean none = outputs.isMissingNode() || outputs.isNull() || outputs.isEmpty();
        if (expected.isNull()) {
            if (!none) {
                s.findings().deviation("executionOutputs: expected none, but was " + outputs);
            }
            return;
        }
        if (!expected.isObject()) {
            return;
        }
        ObjectNode matchers = ((ObjectNode) expected).deepCopy();
        if (matchers.remove("_size") != null) {
            s.findings().expect("executionOutputs size", expected.path("_size").asInt(), none ? 0 : outputs.size());
        }
        OutputMatchers.check("executionOutputs", outputs, matchers, s::isChild, s.findings());
    }

    private static void executionOutputsTree(Subject s, JsonNode expected) {
        JsonNode tree = s.runs().outputsTree();
        expected.properties().forEach(e -> {
            JsonNode actual = OutputMatchers.resolve(tree, e.getKey());
            if (!OutputMatchers.jsonEquals(e.getValue(), actual)) {
                s.findings().deviation("executionOutputsTree." + e.getKey() + ": expected " + e.getValue() + ", but was "
                        + (actual.isMissingNode() ? "absent" : actual));
            }
        });
    }

    private static void absentTaskIds(Subject s, JsonNode expected) {
        expected.forEach(id -> {
            long count = s.runs().count(id.asText());
            if (count > 0) {
                s.findings().deviation("absentTaskIds: expected no task run of '" + id.asText() + "', but there are " + count);
            }
        });
    }

    /** "a2 starts after a1 ends": the first run of a2 starts no earlier than the first run of a1 ends. */
    private static void ordering(Subject s, JsonNode expected) {
        expected.forEach(sentence -> CorpusPhrases.ordering(sentence.asText()).ifPresentOrElse(o -> {
            Optional<JsonNode> later = firstRun(s, "ordering '" + sentence.asText() + "'", o.later());
            Optional<JsonNode> earlier = firstRun(s, "ordering '" + sentence.asText() + "'", o.earlier());
            if (later.isPresent() && earlier.isPresent()) {
                String start = later.get().at("/state/startDate").asText();
                String end = earlier.get().at("/state/endDate").asText();
                if (start.isEmpty() || end.isEmpty() || Instant.parse(start).isBefore(Instant.parse(end))) {
                    s.findings().deviation("ordering: expected " + sentence.asText() + ", but " + o.later() + " started at "
                            + start + " and " + o.earlier() + " ended at " + end);
                }
            }
        }, () -> { }));
    }

    private static void relations(Subject s, JsonNode expected) {
        expected.forEach(sentence -> CorpusPhrases.relation(sentence.asText()).ifPresentOrElse(r -> {
            Optional<String> container = concat(s, r.container(), sentence.asText());
            Optional<String> contained = concat(s, r.contained(), sentence.asText());
            if (container.isPresent() && contained.isPresent() && !container.get().contains(contained.get())) {
                s.findings().deviation("relation '" + sentence.asText() + "': expected '" + container.get() + "' to contain '"
                        + contained.get() + "'");
            }
        }, () -> { }));
    }

    private static Optional<String> concat(Subject s, List<CorpusPhrases.Term> terms, String sentence) {
        var text = new StringBuilder();
        for (CorpusPhrases.Term term : terms) {
            if (term.taskId() == null) {
                text.append(term.literal());
                continue;
            }
            Optional<JsonNode> run = s.runs().find(term.taskId(), term.valuePath());
            if (run.isEmpty()) {
                s.findings().deviation("relation '" + sentence + "': expected a task run of '" + term.taskId() + "' at value path "
                        + term.valuePath() + ", but there is none");
                return Optional.empty();
            }
            text.append(run.get().at("/outputs/value").asText());
        }
        return Optional.of(text.toString());
    }

    private static void childExecution(Subject s, JsonNode expected) {
        String flowId = expected.path("flowId").asText(null);
        s.children().get().stream().filter(c -> flowId == null || flowId.equals(c.path("flowId").asText())).findFirst()
                .ifPresentOrElse(child -> checkChild(s, "childExecution", expected, child),
                        () -> s.findings().deviation("childExecution: expected an execution of '" + flowId
                                + "' started by this one, but there is none"));
    }

    private static void childExecutions(Subject s, JsonNode expected) {
        for (JsonNode entry : expected) {
            String flowId = entry.path("flowId").asText();
            s.descendants().get().stream().filter(c -> flowId.equals(c.path("flowId").asText())).findFirst()
                    .ifPresentOrElse(child -> checkChild(s, "childExecutions '" + flowId + "'", entry, child),
                            () -> s.findings().deviation("childExecutions: expected an execution of '" + flowId
                                    + "' started under this one, but there is none"));
        }
    }

    /** Values like {@code <parent execution id>} stand for the id of the execution under check (the root). */
    private static void checkChild(Subject s, String where, JsonNode expected, JsonNode child) {
        String rootId = s.execution().path("id").asText();
        if (expected.has("state")) {
            s.findings().expect(where + ".state", expected.path("state").asText(), child.at("/state/current").asText());
        }
        if (expected.has("taskRunCount")) {
            s.findings().expect(where + ".taskRunCount", expected.path("taskRunCount").asInt(), child.path("taskRunList").size());
        }
        var labels = new LinkedHashMap<String, String>();
        child.path("labels").forEach(l -> labels.put(l.path("key").asText(), l.path("value").asText()));
        if (expected.has("labels_size")) {
            s.findings().expect(where + ".labels size", expected.path("labels_size").asInt(), labels.size());
        }
        expected.path("labels").properties().forEach(l -> s.findings().expect(where + ".labels." + l.getKey(),
                placeholder(l.getValue().asText(), rootId), labels.get(l.getKey())));
        if (expected.has("trigger")) {
            JsonNode trigger = child.path("trigger");
            if (trigger.isMissingNode() || trigger.isNull()) {
                s.findings().deviation(where + ".trigger: expected " + expected.path("trigger") + ", but the execution has none");
                return;
            }
            s.findings().expect(where + ".trigger.type", expected.at("/trigger/type").asText(), trigger.path("type").asText());
            expected.at("/trigger/variables").properties().forEach(v -> s.findings().expect(where + ".trigger.variables." + v.getKey(),
                    placeholder(v.getValue().asText(), rootId), trigger.path("variables").path(v.getKey()).asText(null)));
        }
    }

    private static String placeholder(String value, String rootId) {
        return value.matches("<.*execution id>") ? rootId : value;
    }

    private static Optional<JsonNode> firstRun(Subject s, String where, String taskId) {
        Optional<JsonNode> run = s.runs().first(taskId);
        if (run.isEmpty()) {
            s.findings().deviation(where + ": expected a task run of '" + taskId + "', but there is none");
        }
        return run;
    }
}
