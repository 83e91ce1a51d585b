package io.millrace.core.flow;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Parses a flow's task tree: a registry of small parsers, one per type, over the options common to every task.
 * Collects every problem rather than stopping at the first.
 */
final class TaskTreeParser {
    /** How deep flowables may nest: deeper flows are refused, so no decision walks an unbounded tree. */
    static final int MAX_DEPTH = 50;
    static final Pattern ID = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9._-]*$");
    private static final Set<String> COMMON = Set.of("id", "type", "description", "disabled", "workerGroup", "timeout",
            "retry", "runIf", "allowFailure", "allowWarning", "logLevel", "logToFile");

    /** Parses one type's own properties; common options are read already. */
    @FunctionalInterface
    interface TypeParser {
        TaskDef parse(TaskNode node, String id, String type, TaskOptions options);
    }

    private static final Map<String, TypeParser> FLOWABLES = Map.of(
            TaskTypes.SEQUENTIAL, (n, id, type, o) -> new Sequential(id, o, n.tasks("tasks", true),
                    n.tasks("errors", false), n.tasks("finally", false)),
            TaskTypes.ALLOW_FAILURE, (n, id, type, o) -> new AllowFailure(id, o, n.tasks("tasks", true),
                    n.tasks("errors", false), n.tasks("finally", false)),
            TaskTypes.PARALLEL, (n, id, type, o) -> new Parallel(id, o, n.count("concurrent", 0),
                    n.tasks("tasks", true), n.tasks("errors", false), n.tasks("finally", false)),
            TaskTypes.FOR_EACH, (n, id, type, o) -> forEach(n, id, type, o, "values", n.count("concurrencyLimit", 1), false),
            TaskTypes.EACH_SEQUENTIAL, (n, id, type, o) -> forEach(n, id, type, o, "value", 1, false),
            TaskTypes.EACH_PARALLEL, (n, id, type, o) -> forEach(n, id, type, o, "value", n.count("concurrent", 0), true),
            TaskTypes.IF, (n, id, type, o) -> new If(id, o, n.requiredText("condition"), n.tasks("then", true),
                    n.tasks("else", false), n.tasks("errors", false), n.tasks("finally", false)),
            TaskTypes.SWITCH, TaskTreeParser::switchTask,
            TaskTypes.PAUSE, TaskTreeParser::pause);

    final List<String> problems;
    private final Set<String> ids = new HashSet<>();
    private final PluginDefaults defaults;
    private final RetryPolicy flowRetry;

    /** @param flowRetry the flow's {@code retry}: the policy of a worker task or subflow without one of its own */
    TaskTreeParser(List<String> problems, PluginDefaults defaults, RetryPolicy flowRetry) {
        this.problems = problems;
        this.defaults = defaults;
        this.flowRetry = flowRetry;
    }

    List<TaskDef> tasks(JsonNode node, String path, String where, boolean required, int depth) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            if (required) {
                problems.add("Expected '" + where + "' to list at least one task, but it is missing");
            }
            return List.of();
        }
        if (!node.isArray() || (required && node.isEmpty())) {
            problems.add("Expected '" + where + "' to be a non-empty list of tasks, but found " + TaskNode.kind(node));
            return List.of();
        }
        if (depth > MAX_DEPTH) {
            problems.add("Expected tasks nested at most " + MAX_DEPTH + " levels deep, but " + where + " is deeper");
            return List.of();
        }
        var result = new ArrayList<TaskDef>();
        for (int i = 0; i < node.size(); i++) {
            TaskDef task = task(node.get(i), path + "[" + i + "]", depth);
            if (task != null) {
                result.add(task);
            }
        }
        return result;
    }

    private TaskDef task(JsonNode raw, String path, int depth) {
        if (!raw.isObject()) {
            problems.add("Expected " + path + " to be a task mapping, but found " + TaskNode.kind(raw));
            return null;
        }
        int before = problems.size();
        JsonNode withDefaults = defaults.apply(raw);
        String id = withDefaults.path("id").isValueNode() ? withDefaults.path("id").asText() : null;
        String where = id == null ? path : path + " (task '" + id + "')";
        var node = new TaskNode(withDefaults, path, where, depth, this);
        id = requiredId(node, path);
        String type = node.text("type");
        if (type == null) {
            problems.add("Missing required property '" + path + ".type'");
        }
        String canonical = type == null ? null : TaskTypes.canonical(type).orElse(null);
        if (type != null && canonical == null) {
            String why = TaskTypes.NOT_YET.get(type);
            problems.add(why != null ? "Unsupported task type '" + type + "' at " + where + ".type: " + why
                    : "Unknown task type '" + type + "' at " + where + ".type; supported: " + supported());
        }
        TaskOptions options = options(node, canonical);
        TaskDef task = null;
        if (canonical != null) {
            TypeParser flowable = FLOWABLES.get(canonical);
            task = flowable != null ? flowable.parse(node, id, canonical, options)
                    : TaskTypes.SUBFLOWS.contains(canonical) ? subflow(node, id, canonical, options)
                    : workerTask(node, id, canonical, options);
            for (String unknown : node.unread()) {
                problems.add("Unknown or unsupported property '" + unknown + "' at " + where);
            }
        }
        return problems.size() > before ? null : task;
    }

    private String requiredId(TaskNode node, String path) {
        String id = node.text("id");
        if (id == null || id.isBlank()) {
            problems.add("Missing required property '" + path + ".id'");
            return null;
        }
        if (!ID.matcher(id).matches()) {
            problems.add("Expected the id of " + path + " to match " + ID.pattern() + ", but was '" + id + "'");
        }
        if (!ids.add(id)) {
            problems.add("Expected task ids to be unique, but '" + id + "' at " + path + " is used twice");
        }
        return id;
    }

    private static String supported() {
        var all = new TreeSet<>(TaskTypes.RUNNABLE);
        all.addAll(TaskTypes.FLOWABLE);
        all.addAll(TaskTypes.SUBFLOWS);
        return String.join(", ", all) + " (aliases: " + String.join(", ",
                new TreeSet<>(TaskTypes.aliases().stream().filter(a -> !a.contains(".")).toList())) + ")";
    }

    private static TaskDef workerTask(TaskNode node, String id, String type, TaskOptions options) {
        TaskTypes.TypeSpec spec = TaskTypes.spec(type);
        var properties = new LinkedHashMap<String, Object>();
        node.node.fieldNames().forEachRemaining(name -> {
            if (!COMMON.contains(name) && spec.accepts(name)) {
                properties.put(name, node.raw(name));
            }
        });
        spec.required().stream()
                .filter(p -> !node.node.hasNonNull(p))
                .forEach(p -> node.problem("Missing required property '" + p + "' at " + node.where));
        return new WorkerTask(id, type, options, properties);
    }

    private static TaskDef forEach(TaskNode node, String id, String type, TaskOptions options, String valuesProperty,
            int concurrency, boolean eachTaskApart) {
        Object values = node.raw(valuesProperty);
        if (values == null) {
            node.problem("Missing required property '" + valuesProperty + "' at " + node.where);
        } else if (!(values instanceof String) && !(values instanceof List<?>)) {
            node.problem("Expected '" + valuesProperty + "' at " + node.where
                    + " to be a list or a string rendering to a JSON array, but found " + TaskNode.kind(node.node.get(valuesProperty)));
        }
        return new ForEach(id, type, options, values, concurrency, eachTaskApart, node.tasks("tasks", true),
                node.tasks("errors", false), node.tasks("finally", false));
    }

    private static TaskDef switchTask(TaskNode node, String id, String type, TaskOptions options) {
        String value = node.requiredText("value");
        var cases = new LinkedHashMap<String, List<TaskDef>>();
        JsonNode casesNode = node.get("cases");
        if (casesNode != null) {
            if (!casesNode.isObject()) {
                node.problem("Expected 'cases' at " + node.where + " to map values to lists of tasks, but found "
                        + TaskNode.kind(casesNode));
            } else {
                casesNode.fields().forEachRemaining(c -> cases.put(c.getKey(), node.parser.tasks(c.getValue(),
                        node.path + ".cases." + c.getKey(), node.where + ".cases." + c.getKey(), true, node.depth + 1)));
            }
        }
        List<TaskDef> defaults = node.has("defaults") ? node.tasks("defaults", true) : null;
        if (cases.isEmpty() && defaults == null) {
            node.problem("Expected 'cases' or 'defaults' at " + node.where + ", but it has neither");
        }
        return new Switch(id, options, value, cases, defaults, node.tasks("errors", false), node.tasks("finally", false));
    }

    /**
     * A Pause's {@code timeout} is how long it waits to be resumed (then it fails), not a time limit on its run;
     * {@code pauseDuration} is the newer name of {@code delay}.
     */
    private static TaskDef pause(TaskNode node, String id, String type, TaskOptions options) {
        Duration delay = duration(node, "delay");
        Duration newerDelay = duration(node, "pauseDuration");
        if (delay != null && newerDelay != null) {
            node.problem("Expected one of 'delay' and 'pauseDuration' at " + node.where + ", but both are set");
        }
        JsonNode onResume = node.get("onResume");
        List<InputDef> inputs = onResume == null ? null
                : FlowParser.inputs(onResume, node.where + ".onResume", node.parser.problems);
        return new Pause(id, options.withTimeout(null), delay != null ? delay : newerDelay, options.timeout(), inputs,
                node.tasks("tasks", false), node.tasks("errors", false), node.tasks("finally", false));
    }

    /** A Subflow (or Kestra's older Flow task); {@code wait} and {@code transmitFailed} are true unless set. */
    private static TaskDef subflow(TaskNode node, String id, String type, TaskOptions options) {
        String namespace = node.requiredText("namespace");
        String flowId = node.requiredText("flowId");
        int revision = node.count("revision", 0);
        boolean wait = !node.has("wait") || node.bool("wait");
        boolean transmitFailed = !node.has("transmitFailed") || node.bool("transmitFailed");
        return new Subflow(id, type, options, namespace, flowId, revision == 0 ? null : revision,
                map(node, "inputs"), labels(node), wait, transmitFailed, node.bool("inheritLabels"), map(node, "outputs"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(TaskNode node, String name) {
        Object value = node.raw(name);
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?>)) {
            node.problem("Expected '" + name + "' at " + node.where + " to map names to values, but found "
                    + TaskNode.kind(node.node.get(name)));
            return Map.of();
        }
        return (Map<String, Object>) value;
    }

    /** Labels as a map, or as Kestra's list of {@code {key, value}}. */
    private static Map<String, String> labels(TaskNode node) {
        Object value = node.raw("labels");
        var labels = new LinkedHashMap<String, String>();
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> labels.put(String.valueOf(k), String.valueOf(v)));
        } else if (value instanceof List<?> list) {
            for (Object item : list) {
                if (item instanceof Map<?, ?> label && label.get("key") != null && label.get("value") != null) {
                    labels.put(String.valueOf(label.get("key")), String.valueOf(label.get("value")));
                } else {
                    node.problem("Expected each label at " + node.where + ".labels to be {key, value}, but found " + item);
                }
            }
        } else if (value != null) {
            node.problem("Expected 'labels' at " + node.where + " to be a map or a list of {key, value}, but found "
                    + TaskNode.kind(node.node.get("labels")));
        }
        return labels;
    }

    /**
     * The options common to every task; a worker task or subflow without a {@code retry} takes the flow's (Kestra
     * applies it there, not to flowables).
     */
    private TaskOptions options(TaskNode node, String canonical) {
        Duration timeout = duration(node, "timeout");
        String workerGroup = workerGroup(node);
        String logLevel = node.text("logLevel");
        node.raw("logToFile");
        RetryPolicy retry = retry(node);
        if (retry == null && canonical != null
                && (TaskTypes.RUNNABLE.contains(canonical) || TaskTypes.SUBFLOWS.contains(canonical))) {
            retry = flowRetry;
        }
        return new TaskOptions(retry, timeout, node.text("runIf"), node.bool("allowFailure"),
                node.bool("allowWarning"), node.bool("disabled"), workerGroup, node.text("description"), logLevel);
    }

    private static Duration duration(TaskNode node, String name) {
        JsonNode value = node.get(name);
        if (value == null) {
            return null;
        }
        Duration parsed = positiveDuration(value);
        if (parsed == null) {
            node.problem("Expected " + name + " at " + node.where + " to be a positive ISO-8601 duration such as PT5M, but found " + value);
        }
        return parsed;
    }

    static Duration positiveDuration(JsonNode value) {
        if (value == null || !value.isTextual()) {
            return null;
        }
        try {
            Duration duration = Duration.parse(value.asText());
            return duration.isNegative() || duration.isZero() ? null : duration;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String workerGroup(TaskNode node) {
        JsonNode value = node.get("workerGroup");
        if (value == null) {
            return TaskDef.DEFAULT_WORKER_GROUP;
        }
        String key = value.isObject() ? value.path("key").asText(null) : value.isTextual() ? value.asText() : null;
        if (key == null || !ID.matcher(key).matches()) {
            node.problem("Expected workerGroup at " + node.where + " to be {key: <name>} with a name matching "
                    + ID.pattern() + ", but found " + value);
            return TaskDef.DEFAULT_WORKER_GROUP;
        }
        return key;
    }

    private static RetryPolicy retry(TaskNode node) {
        JsonNode value = node.get("retry");
        if (value == null) {
            return null;
        }
        return RetryParser.parse(value, node.where + ".retry", node.parser.problems);
    }
}
