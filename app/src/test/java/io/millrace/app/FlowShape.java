package io.millrace.app;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** What the conformance runner reads from a corpus flow's YAML: the type of every task id, and which tasks loop. */
record FlowShape(Map<String, String> typeById) {

    /** Kestra's looping flowables: their child task runs carry the iteration's value. */
    private static final Set<String> LOOPS = Set.of("ForEach", "EachSequential", "EachParallel");

    static FlowShape of(Map<String, Object> yaml) {
        var types = new HashMap<String, String>();
        walk(yaml, types);
        return new FlowShape(Map.copyOf(types));
    }

    Set<String> loopTaskIds() {
        return typeById.entrySet().stream().filter(e -> LOOPS.contains(simpleName(e.getValue())))
                .map(Map.Entry::getKey).collect(Collectors.toUnmodifiableSet());
    }

    private static void walk(Object node, Map<String, String> types) {
        if (node instanceof Map<?, ?> map) {
            if (map.get("id") instanceof String id && map.get("type") instanceof String type) {
                types.put(id, type);
            }
            map.values().forEach(value -> walk(value, types));
        } else if (node instanceof List<?> list) {
            list.forEach(item -> walk(item, types));
        }
    }

    private static String simpleName(String type) {
        return type.substring(type.lastIndexOf('.') + 1);
    }
}
