package io.millrace.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.LatencyBreakdown;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.TaskSecrets;
import io.millrace.core.flow.InputCipher;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunRecord;
import io.millrace.serdes.avro.TaskRunSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Executions as Kestra's API shows them: {@code taskRunList}, labels as a list of key/value pairs,
 * and a {@code state} object with its histories, start and end dates and duration. Dates are
 * ISO-8601 instants, durations ISO-8601 durations ({@code PT1.5S}). SECRET inputs show as {@code ******}.
 */
final class ExecutionJson {
    private static final ObjectMapper MAPPER = Json.MAPPER;

    private ExecutionJson() {
    }

    /**
     * The snapshots the executor published: the execution's, and its task runs' with their outputs (or, from an older
     * executor, the runs inline with an outputs map).
     */
    static ObjectNode of(ReadModel.Snapshot snapshot, Instant now) {
        return of(execution(snapshot), outputs(snapshot), now);
    }

    /** The outputs JSON of the execution's runs, by task run id, as the snapshots say. */
    static Map<String, String> outputs(ReadModel.Snapshot snapshot) {
        ExecutionSnapshot execution = snapshot.execution();
        if (execution.getTaskRunCount() == null) {
            return execution.getTaskOutputs();
        }
        var outputs = new HashMap<String, String>();
        for (TaskRunSnapshot run : snapshot.runs()) {
            if (run.getOutputsJson() != null) {
                outputs.put(run.getRun().getId(), run.getOutputsJson());
            }
        }
        return outputs;
    }

    /** The execution and its runs as the snapshots say, without outputs. */
    static Execution execution(ReadModel.Snapshot snapshot) {
        ExecutionSnapshot execution = snapshot.execution();
        if (execution.getTaskRunCount() == null) {
            return ExecutionMapper.fromRecord(execution.getExecution());
        }
        var runs = new ArrayList<TaskRunRecord>(snapshot.runs().size());
        snapshot.runs().forEach(run -> runs.add(run.getRun()));
        return ExecutionMapper.fromRecord(execution.getExecution(), runs);
    }

    /**
     * @param taskOutputs task run id to outputs JSON, as in {@link ExecutionSnapshot}
     * @param now the end of the duration of what is not over yet
     */
    static ObjectNode of(Execution execution, Map<String, String> taskOutputs, Instant now) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("id", execution.id());
        json.put("namespace", execution.namespace());
        json.put("flowId", execution.flowId());
        json.put("flowRevision", execution.flowRevision());
        json.set("inputs", MAPPER.valueToTree(execution.inputs()));
        json.set("labels", labels(execution.labels()));
        if (execution.trigger() != null) {
            json.set("trigger", Json.MAPPER.createObjectNode().put("id", execution.trigger().id())
                    .put("type", execution.trigger().type())
                    .set("variables", Json.MAPPER.valueToTree(execution.trigger().variables())));
        }
        json.set("state", state(execution.state(), execution.histories(), now));
        if (execution.lineage().originalId() != null) {
            json.put("originalId", execution.lineage().originalId());
        }
        json.putObject("metadata").put("attemptNumber", execution.lineage().attempt());
        ArrayNode taskRuns = json.putArray("taskRunList");
        execution.taskRuns().forEach(run -> taskRuns.add(taskRun(execution, run, taskOutputs.get(run.id()), now)));
        json.set("outputs", MAPPER.valueToTree(execution.outputs()));
        if (execution.error() != null) {
            json.put("error", execution.error());
        }
        json.set("breakdown", breakdown(LatencyBreakdown.of(execution)));
        return (ObjectNode) masked(json);
    }

    /** Where the execution's time went ({@link LatencyBreakdown}), each hop an ISO-8601 duration, unknown ones left out. */
    private static ObjectNode breakdown(LatencyBreakdown hops) {
        ObjectNode json = MAPPER.createObjectNode();
        putDuration(json, "queued", hops.queued());
        putDuration(json, "toWorkers", hops.toWorkers());
        putDuration(json, "waitingForSlot", hops.waitingForSlot());
        putDuration(json, "running", hops.running());
        putDuration(json, "resultsBack", hops.resultsBack());
        putDuration(json, "outsideWorkers", hops.outsideWorkers());
        putDuration(json, "total", hops.total());
        return json;
    }

    /**
     * Adds to an ended execution's answer the time from its end (the executor's decision) to {@code readAt}, when the
     * gateway read its last snapshot: the end's commit and the snapshot's way here. Only an answer that waited for the
     * end ({@code ?wait=true}) knows when that was. Empty when the answer is not of an ended execution.
     */
    static Optional<Duration> endToRead(ObjectNode json, Instant readAt) {
        JsonNode end = json.at("/state/endDate");
        if (!end.isTextual() || !(json.get("breakdown") instanceof ObjectNode breakdown)) {
            return Optional.empty();
        }
        Duration d = Duration.between(Instant.parse(end.asText()), readAt).truncatedTo(ChronoUnit.MILLIS);
        Duration endToRead = d.isNegative() ? Duration.ZERO : d;
        putDuration(breakdown, "endToRead", endToRead);
        return Optional.of(endToRead);
    }

    private static void putDuration(ObjectNode json, String name, Duration value) {
        if (value != null) {
            json.put(name, value.toString());
        }
    }

    private static final Pattern ENCRYPTED = Pattern.compile(Pattern.quote(InputCipher.PREFIX) + "[A-Za-z0-9+/=]*");

    /**
     * {@code json} with every encrypted value ({@link InputCipher}: a SECRET input, or what the executor rendered from
     * one into a flow output, a task run's value or an error) shown as {@link TaskSecrets#MASK}, as Kestra shows a
     * SECRET input, in texts and field names alike: an answer shows neither a SECRET input's value nor its ciphertext.
     */
    static JsonNode masked(JsonNode json) {
        if (json.isTextual() && json.asText().contains(InputCipher.PREFIX)) {
            return TextNode.valueOf(mask(json.asText()));
        }
        if (json.isObject()) {
            ObjectNode masked = MAPPER.createObjectNode();
            json.fields().forEachRemaining(field -> masked.set(mask(field.getKey()), masked(field.getValue())));
            return masked;
        }
        if (json.isArray()) {
            ArrayNode masked = MAPPER.createArrayNode();
            json.forEach(item -> masked.add(masked(item)));
            return masked;
        }
        return json;
    }

    private static String mask(String text) {
        return text.contains(InputCipher.PREFIX)
                ? ENCRYPTED.matcher(text).replaceAll(Matcher.quoteReplacement(TaskSecrets.MASK)) : text;
    }

    private static ObjectNode taskRun(Execution execution, TaskRun run, String outputsJson, Instant now) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("id", run.id());
        json.put("executionId", execution.id());
        json.put("namespace", execution.namespace());
        json.put("flowId", execution.flowId());
        json.put("taskId", run.taskId());
        json.put("parentTaskRunId", run.parentTaskRunId());
        json.put("value", run.value());
        if (run.iteration() != null) {
            json.put("iteration", run.iteration());
        }
        json.set("state", state(run.state(), run.histories(), now));
        ArrayNode attempts = json.putArray("attempts");
        run.attempts().forEach(a -> {
            ObjectNode attempt = attempts.addObject();
            attempt.set("state", state(a.state(), a.histories(), now));
            if (a.error() != null) {
                attempt.put("error", a.error());
            }
            if (a.worker() != null) {
                attempt.putObject("worker").put("receivedDate", a.worker().received().toString())
                        .put("startedDate", a.worker().started().toString())
                        .put("endedDate", a.worker().ended().toString());
            }
        });
        json.set("outputs", MAPPER.valueToTree(Json.readMap(outputsJson)));
        if (run.error() != null) {
            json.put("error", run.error());
        }
        return json;
    }

    /** Kestra's State: endDate only once terminal; the duration runs until now while it is not. */
    static ObjectNode state(State current, List<StateHistory> histories, Instant now) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("current", current.name());
        ArrayNode list = json.putArray("histories");
        histories.forEach(h -> list.addObject().put("state", h.state().name()).put("date", h.date().toString()));
        if (!histories.isEmpty()) {
            Instant start = histories.getFirst().date();
            Instant end = current.isTerminal() ? histories.getLast().date() : null;
            json.put("startDate", start.toString());
            if (end != null) {
                json.put("endDate", end.toString());
            }
            Duration duration = Duration.between(start, end != null ? end : now);
            json.put("duration", (duration.isNegative() ? Duration.ZERO : duration).toString());
        }
        return json;
    }

    /** Sorted by key, so the same labels always read the same. */
    private static ArrayNode labels(Map<String, String> labels) {
        ArrayNode json = MAPPER.createArrayNode();
        new TreeMap<>(labels).forEach((key, value) -> json.addObject().put("key", key).put("value", value));
        return json;
    }
}
