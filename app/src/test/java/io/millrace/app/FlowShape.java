package io.millrace.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the conformance runner reads from a corpus flow's YAML: the type of every task id, which tasks loop,
 * and whether the flow belongs to part 2 (a feature the engine does not have yet: retry behavior
 * {@code CREATE_NEW_EXECUTION}).
 */
record FlowShape(Map<String, String> typeById, List<String> part2Features) {

    /** Kestra's looping flowables: their child task runs carry the iteration's value. */
    private static final Set<String> LOOPS = Set.of("ForEach", "EachSequential", "EachParallel");

    static FlowShape of(Map<String, Object> yaml) {
        var types = new HashMap<String, String>();
        var part2 = new ArrayList<String>();
        if (yaml.get("retry") instanceof Map<?, ?> retry && "CREATE_NEW_EXECUTION".equals(retry.get("behavior"))) {
            part2.add("flow-level retry behavior CREATE_NEW_EXECUTION");
        }
        walk(yaml, types, part2);
        return new FlowShape(Map.copyOf(types), List.copyOf(part2));
    }

    Optional<String> part2Reason() {
        return part2Features.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", part2Features));
    }

    Set<String> loopTaskIds() {
        return typeById.entrySet().stream().filter(e -> LOOPS.contains(simpleName(e.getValue())))
                .map(Map.Entry::getKey).collect(Collectors.toUnmodifiableSet());
    }

    private static void walk(Object node, Map<String, String> types, List<String> part2) {
        if (node instanceof Map<?, ?> map) {
            if (map.get("id") instanceof String id && map.get("type") instanceof String type) {
                types.put(id, type);
            }
            if (map.get("retry") instanceof Map<?, ?> retry && "CREATE_NEW_EXECUTION".equals(retry.get("behavior"))) {
                part2.add("retry behavior CREATE_NEW_EXECUTION");
            }
            map.values().forEach(value -> walk(value, types, part2));
        } else if (node instanceof List<?> list) {
            list.forEach(item -> walk(item, types, part2));
        }
    }

    private static String simpleName(String type) {
        return type.substring(type.lastIndexOf('.') + 1);
    }
}
