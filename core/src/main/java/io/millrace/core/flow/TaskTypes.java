package io.millrace.core.flow;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The catalog of task types the engine knows: Kestra's type names plus short aliases.
 * Runnable types go to workers; flowable types (none yet) are resolved by the decider.
 */
public final class TaskTypes {
    public static final String LOG = "io.kestra.plugin.core.log.Log";
    public static final String RETURN = "io.kestra.plugin.core.debug.Return";
    public static final String OUTPUT_VALUES = "io.kestra.plugin.core.output.OutputValues";
    public static final String SLEEP = "io.kestra.plugin.core.flow.Sleep";
    public static final String TRANSFORM_VALUE = "io.kestra.plugin.transform.jsonata.TransformValue";
    public static final String FAIL = "io.kestra.plugin.core.execution.Fail";
    public static final String HTTP_REQUEST = "io.kestra.plugin.core.http.Request";

    /** Every runnable type, by its canonical (Kestra) name. */
    public static final Set<String> RUNNABLE = Set.of(LOG, RETURN, OUTPUT_VALUES, SLEEP, TRANSFORM_VALUE, FAIL, HTTP_REQUEST);

    private static final Map<String, String> ALIASES = Map.of(
            "log", LOG,
            "return", RETURN,
            "output-values", OUTPUT_VALUES,
            "sleep", SLEEP,
            "jsonata", TRANSFORM_VALUE,
            "fail", FAIL,
            "http-request", HTTP_REQUEST);

    /** Properties each runnable type accepts, beyond the common ones; required ones first. */
    private static final Map<String, TypeSpec> SPECS = Map.of(
            LOG, new TypeSpec(Set.of("message"), Set.of("level")),
            RETURN, new TypeSpec(Set.of(), Set.of("format")),
            OUTPUT_VALUES, new TypeSpec(Set.of(), Set.of("values")),
            SLEEP, new TypeSpec(Set.of("duration"), Set.of()),
            TRANSFORM_VALUE, new TypeSpec(Set.of("from", "expression"), Set.of("maxDepth")),
            FAIL, new TypeSpec(Set.of(), Set.of("condition", "errorMessage")),
            HTTP_REQUEST, new TypeSpec(Set.of("uri"),
                    Set.of("method", "headers", "body", "formData", "contentType", "allowFailed", "options")));

    /** Properties every task may carry, whatever its type, and which the engine reads itself. */
    public static final Set<String> COMMON_PROPERTIES = Set.of("id", "type", "description", "disabled", "workerGroup");

    /**
     * A task's time limit, an ISO-8601 duration: every runnable type accepts it. It stays among the task's properties,
     * because the worker enforces it (and a type may also bound its own work by it).
     */
    public static final String TIMEOUT = "timeout";

    /** The task-specific properties of a type: those it requires and those it also accepts ({@link #TIMEOUT} always). */
    public record TypeSpec(Set<String> required, Set<String> optional) {
        public boolean accepts(String property) {
            return required.contains(property) || optional.contains(property) || TIMEOUT.equals(property);
        }
    }

    private TaskTypes() {
    }

    /** The canonical name of a type written in a flow (a Kestra name or an alias), if known. */
    public static Optional<String> canonical(String type) {
        if (type == null) {
            return Optional.empty();
        }
        if (RUNNABLE.contains(type)) {
            return Optional.of(type);
        }
        return Optional.ofNullable(ALIASES.get(type));
    }

    /** The property spec of a canonical runnable type. */
    public static TypeSpec spec(String canonicalType) {
        return SPECS.get(canonicalType);
    }

    public static Set<String> aliases() {
        return ALIASES.keySet();
    }
}
