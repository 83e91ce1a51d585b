package io.millrace.core.flow;

import io.millrace.core.execution.State;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A {@code Flow} trigger, read: which ended executions of other flows start this one. {@code states} (default: every
 * terminal state) and all its {@code conditions} must hold: {@code ExecutionFlow} (namespace and flowId),
 * {@code ExecutionStatus} ({@code in}, {@code notIn}), {@code ExecutionNamespace} (namespace, {@code comparison} EQUALS,
 * PREFIX or SUFFIX, or the older {@code prefix: true}) and {@code ExecutionLabels} (every label, exactly). Its
 * {@code inputs} are rendered against the ended execution ({@code trigger.*}).
 */
public record FlowTriggerSpec(Set<String> states, List<Condition> conditions, Map<String, Object> inputs) {

    /** One condition on the ended execution. */
    public sealed interface Condition {
        boolean test(String namespace, String flowId, String state, Map<String, String> labels);
    }

    record ExecutionFlow(String namespace, String flowId) implements Condition {
        @Override
        public boolean test(String ns, String id, String state, Map<String, String> labels) {
            return namespace.equals(ns) && flowId.equals(id);
        }
    }

    record ExecutionStatus(Set<String> in, Set<String> notIn) implements Condition {
        @Override
        public boolean test(String ns, String id, String state, Map<String, String> labels) {
            return (in.isEmpty() || in.contains(state)) && !notIn.contains(state);
        }
    }

    record ExecutionNamespace(String namespace, String comparison) implements Condition {
        @Override
        public boolean test(String ns, String id, String state, Map<String, String> labels) {
            return switch (comparison) {
                case "PREFIX" -> ns.startsWith(namespace);
                case "SUFFIX" -> ns.endsWith(namespace);
                default -> ns.equals(namespace);
            };
        }
    }

    record ExecutionLabels(Map<String, String> labels) implements Condition {
        @Override
        public boolean test(String ns, String id, String state, Map<String, String> given) {
            return labels.entrySet().stream().allMatch(l -> l.getValue().equals(given.get(l.getKey())));
        }
    }

    private static final String CONDITION = "io.kestra.plugin.core.condition.";
    private static final Map<String, String> CONDITION_NAMES = names();

    private static Map<String, String> names() {
        var names = new LinkedHashMap<String, String>();
        for (String kind : List.of("ExecutionFlow", "ExecutionStatus", "ExecutionNamespace", "ExecutionLabels")) {
            names.put(CONDITION + kind, kind);
            names.put(CONDITION + kind + "Condition", kind);
            names.put("io.kestra.core.models.conditions.types." + kind + "Condition", kind);
        }
        return names;
    }

    /** Every terminal state, as Kestra's {@code terminatedTypes} (CANCELLED, RETRIED and SKIPPED among them). */
    private static final Set<String> TERMINAL = Stream.of(State.values()).filter(State::isTerminal).map(Enum::name)
            .collect(Collectors.toUnmodifiableSet());

    /** Whether an execution in {@code state} has ended in a way a Flow trigger can start on. */
    public static boolean ended(String state) {
        return TERMINAL.contains(state);
    }

    /** True when an execution of another flow that ended so starts this trigger's flow. */
    public boolean matches(String namespace, String flowId, String state, Map<String, String> labels) {
        return states.contains(state) && conditions.stream().allMatch(c -> c.test(namespace, flowId, state, labels));
    }

    /** The spec of a parsed (so valid) Flow trigger. */
    public static FlowTriggerSpec of(TriggerDef trigger) {
        var problems = new ArrayList<String>();
        FlowTriggerSpec spec = read(trigger.properties(), "trigger '" + trigger.id() + "'", problems);
        if (spec == null) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return spec;
    }

    static FlowTriggerSpec read(Map<String, Object> properties, String where, List<String> problems) {
        int before = problems.size();
        Set<String> states = TERMINAL;
        if (properties.get("states") != null) {
            states = stateNames(properties.get("states"), where + ".states", problems);
        }
        var conditions = new ArrayList<Condition>();
        Object given = properties.get("conditions");
        if (given instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                Condition condition = condition(list.get(i), where + ".conditions[" + i + "]", problems);
                if (condition != null) {
                    conditions.add(condition);
                }
            }
        } else if (given != null) {
            problems.add("Expected " + where + ".conditions to be a list");
        }
        Map<String, Object> inputs = TriggerParser.inputs(properties, where, problems);
        return problems.size() > before ? null : new FlowTriggerSpec(states, conditions, inputs);
    }

    private static Condition condition(Object value, String where, List<String> problems) {
        if (!(value instanceof Map<?, ?> map) || !(map.get("type") instanceof String type)) {
            problems.add("Expected " + where + " to be a mapping with a type");
            return null;
        }
        String kind = CONDITION_NAMES.get(type);
        if (kind == null) {
            problems.add("Unsupported condition type '" + type + "' at " + where + "; supported: ExecutionFlow, "
                    + "ExecutionStatus, ExecutionNamespace, ExecutionLabels (io.kestra.plugin.core.condition)");
            return null;
        }
        return switch (kind) {
            case "ExecutionFlow" -> map.get("namespace") instanceof String ns && map.get("flowId") instanceof String id
                    ? new ExecutionFlow(ns, id) : missing(where, "'namespace' and 'flowId'", problems);
            case "ExecutionStatus" -> new ExecutionStatus(
                    map.get("in") == null ? Set.of() : stateNames(map.get("in"), where + ".in", problems),
                    map.get("notIn") == null ? Set.of() : stateNames(map.get("notIn"), where + ".notIn", problems));
            case "ExecutionNamespace" -> {
                if (!(map.get("namespace") instanceof String ns)) {
                    yield missing(where, "'namespace'", problems);
                }
                String comparison = map.get("comparison") != null ? map.get("comparison").toString().toUpperCase(Locale.ROOT)
                        : Boolean.TRUE.equals(map.get("prefix")) ? "PREFIX" : "EQUALS";
                if (!Set.of("EQUALS", "PREFIX", "SUFFIX").contains(comparison)) {
                    problems.add("Expected " + where + ".comparison to be EQUALS, PREFIX or SUFFIX");
                }
                yield new ExecutionNamespace(ns, comparison);
            }
            default -> {
                var labels = new LinkedHashMap<String, String>();
                Object given = map.get("labels");
                if (given instanceof Map<?, ?> pairs) {
                    pairs.forEach((k, v) -> labels.put(String.valueOf(k), String.valueOf(v)));
                } else if (given instanceof List<?> list) {
                    list.forEach(l -> {
                        if (l instanceof Map<?, ?> pair) {
                            labels.put(String.valueOf(pair.get("key")), String.valueOf(pair.get("value")));
                        }
                    });
                } else {
                    yield missing(where, "'labels'", problems);
                }
                yield new ExecutionLabels(labels);
            }
        };
    }

    private static Condition missing(String where, String what, List<String> problems) {
        problems.add("Expected " + what + " at " + where);
        return null;
    }

    private static Set<String> stateNames(Object value, String where, List<String> problems) {
        var names = new LinkedHashSet<String>();
        if (value instanceof List<?> list) {
            for (Object name : list) {
                try {
                    names.add(State.valueOf(String.valueOf(name).toUpperCase(Locale.ROOT)).name());
                } catch (IllegalArgumentException e) {
                    problems.add("Unknown state '" + name + "' at " + where);
                }
            }
        } else {
            problems.add("Expected " + where + " to be a list of states");
        }
        return names;
    }
}
