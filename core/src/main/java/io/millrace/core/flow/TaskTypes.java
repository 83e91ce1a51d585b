package io.millrace.core.flow;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The catalog of task types the engine knows: Kestra's type names, their older names and short aliases. Worker types
 * go to workers; flowable types are resolved by the executor.
 */
public final class TaskTypes {
    public static final String LOG = "io.kestra.plugin.core.log.Log";
    public static final String RETURN = "io.kestra.plugin.core.debug.Return";
    public static final String OUTPUT_VALUES = "io.kestra.plugin.core.output.OutputValues";
    public static final String SLEEP = "io.kestra.plugin.core.flow.Sleep";
    public static final String TRANSFORM_VALUE = "io.kestra.plugin.transform.jsonata.TransformValue";
    public static final String FAIL = "io.kestra.plugin.core.execution.Fail";
    public static final String HTTP_REQUEST = "io.kestra.plugin.core.http.Request";
    public static final String KAFKA_PRODUCE = "io.kestra.plugin.kafka.Produce";

    public static final String SEQUENTIAL = "io.kestra.plugin.core.flow.Sequential";
    public static final String PARALLEL = "io.kestra.plugin.core.flow.Parallel";
    public static final String FOR_EACH = "io.kestra.plugin.core.flow.ForEach";
    public static final String EACH_SEQUENTIAL = "io.kestra.plugin.core.flow.EachSequential";
    public static final String EACH_PARALLEL = "io.kestra.plugin.core.flow.EachParallel";
    public static final String IF = "io.kestra.plugin.core.flow.If";
    public static final String SWITCH = "io.kestra.plugin.core.flow.Switch";
    public static final String ALLOW_FAILURE = "io.kestra.plugin.core.flow.AllowFailure";
    public static final String PAUSE = "io.kestra.plugin.core.flow.Pause";
    public static final String SUBFLOW = "io.kestra.plugin.core.flow.Subflow";
    /** Kestra's older name of {@link #SUBFLOW}, still a type of its own there (its child's trigger names it). */
    public static final String FLOW = "io.kestra.plugin.core.flow.Flow";

    /** Every worker type, by its canonical (Kestra) name. */
    public static final Set<String> RUNNABLE = Set.of(LOG, RETURN, OUTPUT_VALUES, SLEEP, TRANSFORM_VALUE, FAIL, HTTP_REQUEST,
            KAFKA_PRODUCE);

    /** Every flowable type, by its canonical (Kestra) name. */
    public static final Set<String> FLOWABLE =
            Set.of(SEQUENTIAL, PARALLEL, FOR_EACH, EACH_SEQUENTIAL, EACH_PARALLEL, IF, SWITCH, ALLOW_FAILURE, PAUSE);

    /** The types the executor runs by starting another execution. */
    public static final Set<String> SUBFLOWS = Set.of(SUBFLOW, FLOW);

    /** Kestra types this engine does not run yet, and why a flow using one is refused. */
    public static final Map<String, String> NOT_YET = Map.of(
            "io.kestra.plugin.core.flow.ForEachItem", "ForEachItem is not supported yet",
            "io.kestra.plugin.core.flow.WaitFor", "WaitFor is not supported yet",
            "io.kestra.plugin.core.flow.Dag", "Dag is not supported yet",
            "io.kestra.plugin.core.flow.Template", "templates are not supported");

    private static final Map<String, String> ALIASES = buildAliases();

    private static Map<String, String> buildAliases() {
        var aliases = new LinkedHashMap<String, String>();
        aliases.put("log", LOG);
        aliases.put("return", RETURN);
        aliases.put("output-values", OUTPUT_VALUES);
        aliases.put("sleep", SLEEP);
        aliases.put("jsonata", TRANSFORM_VALUE);
        aliases.put("fail", FAIL);
        aliases.put("http-request", HTTP_REQUEST);
        aliases.put("kafka-produce", KAFKA_PRODUCE);
        aliases.put("sequential", SEQUENTIAL);
        aliases.put("parallel", PARALLEL);
        aliases.put("for-each", FOR_EACH);
        aliases.put("if", IF);
        aliases.put("switch", SWITCH);
        aliases.put("allow-failure", ALLOW_FAILURE);
        aliases.put("pause", PAUSE);
        aliases.put("subflow", SUBFLOW);
        aliases.put("io.kestra.core.tasks.flows.Flow", FLOW);
        aliases.put("io.kestra.core.tasks.flows.Subflow", SUBFLOW);
        // the names of Kestra's core tasks before 0.17, which older flows still use
        for (String flowable : Set.of("Sequential", "Parallel", "EachSequential", "EachParallel", "Switch", "AllowFailure",
                "Pause")) {
            aliases.put("io.kestra.core.tasks.flows." + flowable, "io.kestra.plugin.core.flow." + flowable);
        }
        aliases.put("io.kestra.core.tasks.flows.ForEach", FOR_EACH);
        aliases.put("io.kestra.core.tasks.flows.If", IF);
        aliases.put("io.kestra.core.tasks.log.Log", LOG);
        aliases.put("io.kestra.core.tasks.debugs.Return", RETURN);
        aliases.put("io.kestra.core.tasks.flows.Sleep", SLEEP);
        return Map.copyOf(aliases);
    }

    /** Properties each worker type accepts, beyond the common ones; required ones first. */
    private static final Map<String, TypeSpec> SPECS = Map.of(
            LOG, new TypeSpec(Set.of("message"), Set.of("level")),
            RETURN, new TypeSpec(Set.of(), Set.of("format")),
            OUTPUT_VALUES, new TypeSpec(Set.of(), Set.of("values")),
            SLEEP, new TypeSpec(Set.of("duration"), Set.of()),
            TRANSFORM_VALUE, new TypeSpec(Set.of("from", "expression"), Set.of("maxDepth")),
            FAIL, new TypeSpec(Set.of(), Set.of("condition", "errorMessage")),
            HTTP_REQUEST, new TypeSpec(Set.of("uri"),
                    Set.of("method", "headers", "body", "formData", "contentType", "allowFailed", "options")),
            KAFKA_PRODUCE, new TypeSpec(Set.of("properties", "from"), Set.of("topic", "keySerializer", "valueSerializer",
                    "serdeProperties", "transactional", "keyAvroSchema", "valueAvroSchema")));

    /**
     * A task's time limit, an ISO-8601 duration. The worker enforces it on worker tasks, so it travels with their
     * properties; the executor enforces it on flowables.
     */
    public static final String TIMEOUT = "timeout";

    /** The least level of log lines a worker task keeps; travels with its properties, like {@link #TIMEOUT}. */
    public static final String LOG_LEVEL = "logLevel";

    /** The task-specific properties of a worker type: those it requires and those it also accepts. */
    public record TypeSpec(Set<String> required, Set<String> optional) {
        public boolean accepts(String property) {
            return required.contains(property) || optional.contains(property);
        }
    }

    private TaskTypes() {
    }

    /** The canonical name of a type written in a flow (a Kestra name, an older name or an alias), if known. */
    public static Optional<String> canonical(String type) {
        if (type == null) {
            return Optional.empty();
        }
        if (RUNNABLE.contains(type) || FLOWABLE.contains(type) || SUBFLOWS.contains(type)) {
            return Optional.of(type);
        }
        return Optional.ofNullable(ALIASES.get(type));
    }

    /** The property spec of a canonical worker type. */
    public static TypeSpec spec(String canonicalType) {
        return SPECS.get(canonicalType);
    }

    public static Set<String> aliases() {
        return ALIASES.keySet();
    }
}
