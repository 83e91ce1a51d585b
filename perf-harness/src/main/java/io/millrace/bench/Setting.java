package io.millrace.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One engine configuration of a comparison: the settings given on the bench command line (one value of each
 * list), the number of executor instances and the engine build that runs.
 */
record Setting(Map<String, String> varied, Map<String, String> fixed, int executors, EngineBuild build, int pass) {
    private static final String GUARANTEE = "processing-guarantee";
    /**
     * Not an engine setting: options of the engine's JVMs, space-separated, after {@link EngineProcess#JVM_DEFAULTS}
     * (so they win), e.g. {@code --vary java-options=-XX:MaxTenuringThreshold=15,-XX:MaxTenuringThreshold=2}.
     */
    static final String JAVA_OPTIONS = "java-options";

    Setting {
        varied = Map.copyOf(new LinkedHashMap<>(varied));
        fixed = Map.copyOf(new LinkedHashMap<>(fixed));
    }

    Setting(Map<String, String> varied, Map<String, String> fixed, int executors, EngineBuild build) {
        this(varied, fixed, executors, build, 0);
    }

    /** This setting in pass 1 or 2 of a run in both orders ({@code --both-orders}); 0 when the run has one pass. */
    Setting inPass(int pass) {
        return new Setting(varied, fixed, executors, build, pass);
    }

    /**
     * Every combination of the listed values, in order (the first key varies slowest, the build fastest, so that the
     * builds of one setting run one right after the other); an empty list leaves the setting at the engine's default,
     * no builds the harness's own.
     */
    static List<Setting> combinations(Map<String, ? extends List<?>> lists, List<Integer> executors,
            List<EngineBuild> builds, Map<String, String> fixed) {
        List<Map<String, String>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        for (var entry : lists.entrySet()) {
            if (entry.getValue().isEmpty()) {
                continue;
            }
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> combo : combos) {
                for (Object value : entry.getValue()) {
                    var extended = new LinkedHashMap<>(combo);
                    extended.put(entry.getKey(), value.toString());
                    next.add(extended);
                }
            }
            combos = next;
        }
        List<Integer> counts = executors.isEmpty() ? List.of(1) : executors;
        List<EngineBuild> engines = builds.isEmpty() ? List.of(EngineBuild.OWN) : builds;
        var settings = new ArrayList<Setting>();
        for (Map<String, String> combo : combos) {
            for (int count : counts) {
                if (count < 1) {
                    throw new IllegalArgumentException("--executors must be at least 1, got " + count);
                }
                for (EngineBuild build : engines) {
                    settings.add(new Setting(combo, fixed, count, build));
                }
            }
        }
        return settings;
    }

    /** The settings the engine processes get, as {@code --set key=value}. */
    Map<String, String> engineSettings(String topicPrefix) {
        var all = new LinkedHashMap<String, String>(fixed);
        all.putAll(varied);
        all.remove(JAVA_OPTIONS);
        all.put("topic-prefix", topicPrefix);
        return all;
    }

    /** The options of the engine's JVMs this setting adds ({@link #JAVA_OPTIONS}); none unless given. */
    List<String> javaOptions() {
        String options = varied.getOrDefault(JAVA_OPTIONS, fixed.getOrDefault(JAVA_OPTIONS, "")).strip();
        return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
    }

    String guarantee(String otherwise) {
        return varied.getOrDefault(GUARANTEE, fixed.getOrDefault(GUARANTEE, otherwise));
    }

    /**
     * The settings that tell this run apart, sorted, guarantee excluded (it has its own column); {@code engine=label}
     * when a jar runs, {@code pass=n} in a run in both orders.
     */
    String describe() {
        var parts = new java.util.TreeMap<String, String>(fixed);
        parts.putAll(varied);
        parts.putAll(build.describe());
        parts.remove(GUARANTEE);
        if (executors > 1) {
            parts.put("executors", Integer.toString(executors));
        }
        if (pass > 0) {
            parts.put("pass", Integer.toString(pass));
        }
        return parts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
    }
}
