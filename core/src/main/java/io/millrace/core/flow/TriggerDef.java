package io.millrace.core.flow;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One of a flow's {@code triggers}: its id, its canonical type (see {@link TriggerTypes}), whether it is
 * {@code disabled}, the labels it adds to the executions it starts, and its other properties as written (validated for
 * its type by {@link TriggerParser}).
 */
public record TriggerDef(String id, String type, boolean disabled, Map<String, String> labels,
        Map<String, Object> properties) {

    public TriggerDef {
        labels = Map.copyOf(labels);
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    /** A property's value as a string, or null when it is absent. */
    public String text(String name) {
        Object value = properties.get(name);
        return value == null ? null : value.toString();
    }
}
