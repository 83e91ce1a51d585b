package io.millrace.core.execution;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Immutable maps that keep insertion order and allow null values (JSON data can hold nulls). */
public final class Maps {
    private Maps() {
    }

    public static Map<String, Object> immutable(Map<String, Object> map) {
        if (map == null || map.isEmpty()) {
            return Map.of();
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
