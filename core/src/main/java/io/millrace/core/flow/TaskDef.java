package io.millrace.core.flow;

import java.util.Map;

/**
 * One task as declared in a flow. {@code type} is canonical (a Kestra type name);
 * {@code properties} are the task's own fields, unrendered.
 */
public record TaskDef(String id, String type, String workerGroup, boolean disabled, Map<String, Object> properties) {

    public static final String DEFAULT_WORKER_GROUP = "default";

    public TaskDef {
        properties = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(properties));
    }
}
