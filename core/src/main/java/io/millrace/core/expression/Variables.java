package io.millrace.core.expression;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the variables an expression sees, under Kestra's names: {@code execution}, {@code flow},
 * {@code inputs}, {@code outputs}, {@code labels}, {@code task}, {@code taskrun}. A group that is not set is
 * absent, so under strict variables {@code {{ outputs.x }}} fails until outputs exist (as in Kestra) while
 * {@code {{ outputs.x ?? 'none' }}} does not.
 */
public final class Variables {

    private Variables() {
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
            return put("execution", group("id", id, "startDate", startDate));
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

        /**
         * Any other top-level variable (e.g. Kestra's {@code parent}, {@code parents}, {@code vars}); replaces
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
