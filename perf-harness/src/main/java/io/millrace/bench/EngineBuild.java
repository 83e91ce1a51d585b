package io.millrace.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine build a self-started engine runs: this harness's own classpath, or a runnable jar (another build, to
 * compare with this one). {@code label} tells a jar's runs apart in the results; empty for the harness's own build.
 */
record EngineBuild(String label, Path jar) {
    /** The build the harness itself belongs to. */
    static final EngineBuild OWN = new EngineBuild("", null);

    /**
     * Builds from {@code --engine-jar} values, {@code label=path} or {@code path}. A jar without a label is labelled by
     * its file name, or by the path as given when another jar has the same file name ({@code millrace.jar} twice).
     */
    static List<EngineBuild> parse(List<String> values) {
        record Given(String label, Path path) {
            String fileName() {
                return path.getFileName().toString();
            }
        }
        var given = new ArrayList<Given>();
        for (String value : values) {
            int eq = value.indexOf('=');
            String path = (eq < 0 ? value : value.substring(eq + 1)).strip();
            if (path.isEmpty()) {
                throw new IllegalArgumentException("Expected --engine-jar to be path or label=path, but was '" + value + "'");
            }
            given.add(new Given(eq < 0 ? null : value.substring(0, eq).strip(), Path.of(path)));
        }
        var sameName = new HashMap<String, Integer>();
        given.forEach(g -> sameName.merge(g.fileName(), 1, Integer::sum));
        var builds = new ArrayList<EngineBuild>();
        var seen = new HashMap<String, Path>();
        for (Given g : given) {
            String label = g.label() != null ? g.label() : sameName.get(g.fileName()) > 1 ? g.path().toString() : g.fileName();
            Path before = seen.put(label, g.path());
            if (label.isEmpty() || before != null) {
                throw new IllegalArgumentException("Expected every --engine-jar to have a label of its own, but '" + label
                        + "' names " + (before == null ? g.path() : before + " and " + g.path()));
            }
            builds.add(new EngineBuild(label, g.path()));
        }
        return builds;
    }

    /** Fails unless the jar exists, before any engine is started. */
    void requireJar() {
        if (jar != null && !Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("Expected the engine jar of '" + label + "' at " + jar.toAbsolutePath()
                    + ", but there is no such file (build it with ./mvnw -q package -DskipTests)");
        }
    }

    /** The JVM arguments that start the engine: {@code -jar jar}, or this JVM's classpath and {@code mainClass}. */
    List<String> launchArguments(String mainClass) {
        if (jar != null) {
            return List.of("-jar", jar.toAbsolutePath().toString());
        }
        return List.of("-cp", System.getProperty("java.class.path"), mainClass);
    }

    /** {@code engine=label} for a jar, nothing for the harness's own build. */
    Map<String, String> describe() {
        return jar == null ? Map.of() : Map.of("engine", label);
    }
}
