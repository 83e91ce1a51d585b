package io.millrace.core.expression;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the variables an expression sees, under Kestra's names: {@code execution}, {@code flow},
 * {@code inputs}, {@code outputs}, {@code labels}, {@code task}, {@code taskrun}, {@code parents},
 * {@code parent}, {@code vars}. A group that is not set is absent, so under strict variables
 * {@code {{ outputs.x }}} fails until outputs exist (as in Kestra) while {@code {{ outputs.x ?? 'none' }}} does not.
 */
public final class Variables {

    /**
     * The reserved variable {@code errorLogs()} reads: the execution's error log entries (Kestra reads them from its
     * log store, which Millrace does not have). Set it with {@link Builder#errorLogs(List)}.
     */
    public static final String ERROR_LOGS = "__errorLogs";

    /**
     * The reserved variable {@code secret('NAME')} resolves through: the {@link TaskSecrets} of the task run being
     * rendered. Only the worker sets it ({@link #withSecrets}); a render without it cannot resolve a secret.
     */
    public static final String SECRETS = "__secrets";

    private Variables() {
    }

    /** A copy of {@code variables} in which {@code secret('NAME')} resolves through {@code secrets}. */
    public static Map<String, Object> withSecrets(Map<String, Object> variables, TaskSecrets secrets) {
        Map<String, Object> with = new LinkedHashMap<>(variables);
        with.put(SECRETS, secrets);
        return with;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Not thread-safe; build once per render context. */
    public static final class Builder {
        private final Map<String, Object> variables = new LinkedHashMap<>();

        private Builder() {
        }

        /** {@code execution: {id, startDate}}. */
        public Builder execution(String id, Instant startDate) {
            return execution(id, startDate, null);
        }

        /** {@code execution: {id, startDate, originalId}}, {@code originalId} only when another execution made it. */
        public Builder execution(String id, Instant startDate, String originalId) {
            return put("execution", originalId == null ? group("id", id, "startDate", startDate)
                    : group("id", id, "startDate", startDate, "originalId", originalId));
        }

        /** {@code flow: {namespace, id, revision}}. */
        public Builder flow(String namespace, String id, int revision) {
            return put("flow", group("namespace", namespace, "id", id, "revision", revision));
        }

        /** {@code inputs}: the execution's (typed) inputs. */
        public Builder inputs(Map<String, ?> inputs) {
            return put("inputs", copy(inputs));
        }

        /** {@code outputs}: task outputs keyed by task id. */
        public Builder outputs(Map<String, ? extends Map<String, ?>> outputs) {
            return put("outputs", copy(outputs));
        }

        /** {@code labels}: the execution's labels. */
        public Builder labels(Map<String, String> labels) {
            return put("labels", copy(labels));
        }

        /** {@code task: {id, type}}. */
        public Builder task(String id, String type) {
            return put("task", group("id", id, "type", type));
        }

        /** {@code taskrun: {id, startDate, attemptsCount}}. */
        public Builder taskRun(String id, Instant startDate, int attemptsCount) {
            return put("taskrun", group("id", id, "startDate", startDate, "attemptsCount", attemptsCount));
        }

        /** {@code taskrun: {id, startDate, attemptsCount, value}}; see the next method. */
        public Builder taskRun(String id, Instant startDate, int attemptsCount, String value) {
            return taskRun(id, startDate, attemptsCount, value, null, null);
        }

        /**
         * {@code taskrun: {id, startDate, attemptsCount, value, parentId, iteration}}: {@code value} is the value of the
         * loop iteration the task run belongs to and {@code iteration} its index (left out outside loops);
         * {@code parentId} the run of the flowable it runs in. {@code value} and {@code parentId} are there even when
         * null, so outside a loop {@code {{ taskrun.value }}} renders empty (Kestra leaves the key out, and a strict
         * render would fail on it).
         */
        public Builder taskRun(String id, Instant startDate, int attemptsCount, String value, Integer iteration,
                String parentId) {
            Map<String, Object> taskRun = new LinkedHashMap<>(
                    group("id", id, "startDate", startDate, "attemptsCount", attemptsCount, "value", value, "parentId", parentId));
            if (iteration != null) {
                taskRun.put("iteration", iteration);
            }
            return put("taskrun", Collections.unmodifiableMap(taskRun));
        }

        /**
         * {@code parents}: the enclosing task runs, the nearest first ({@code parents[0]}), each a map with
         * {@code taskrun: {value}} when that run has an iteration value and {@code outputs} when it has outputs (Kestra
         * leaves out the runs that have neither). Also sets {@code parent} to the nearest entry, or removes it when
         * the list is empty, as Kestra does.
         */
        public Builder parents(List<Map<String, Object>> parents) {
            List<Map<String, Object>> copy = parents == null ? List.of() : List.copyOf(parents);
            put("parents", copy);
            if (copy.isEmpty()) {
                variables.remove("parent");
                return this;
            }
            return parent(copy.getFirst());
        }

        /** {@code parent}: the nearest enclosing task run's entry, shaped as one of {@link #parents(List)}. */
        public Builder parent(Map<String, Object> parent) {
            return put("parent", copy(parent));
        }

        /** {@code vars}: the flow's {@code variables}. */
        public Builder vars(Map<String, ?> vars) {
            return put("vars", copy(vars));
        }

        /**
         * The execution's error log entries, which {@code errorLogs()} returns, under {@link #ERROR_LOGS}. Each entry
         * is a map shaped as Kestra's log entry: at least {@code taskId}, {@code taskRunId}, {@code level}
         * ({@code "ERROR"}), {@code message} and {@code timestamp}; Kestra gives the first 25 by timestamp.
         */
        public Builder errorLogs(List<Map<String, Object>> entries) {
            return put(ERROR_LOGS, entries == null ? List.of() : List.copyOf(entries));
        }

        /**
         * Any other top-level variable (e.g. Kestra's {@code trigger} or {@code envs}); replaces
         * a group of the same name.
         */
        public Builder put(String name, Object value) {
            variables.put(name, value);
            return this;
        }

        /** An unmodifiable snapshot; the builder may go on being used. */
        public Map<String, Object> build() {
            return Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        }

        /** An unmodifiable map from alternating keys and values (values may be null). */
        private static Map<String, Object> group(Object... keysAndValues) {
            Map<String, Object> group = new LinkedHashMap<>();
            for (int i = 0; i < keysAndValues.length; i += 2) {
                group.put((String) keysAndValues[i], keysAndValues[i + 1]);
            }
            return Collections.unmodifiableMap(group);
        }

        private static Map<String, Object> copy(Map<String, ?> map) {
            return map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
        }
    }
}
