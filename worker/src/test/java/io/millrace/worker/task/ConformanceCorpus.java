package io.millrace.worker.task;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The Kestra conformance corpus, read in place from {@code shared/conformance/kestra-core/} beside (or above)
 * the repository; never copied into the project. Fails loudly when it cannot be found.
 * Public, and shipped in the worker's test-jar, so the app's engine-level conformance test finds the corpus
 * the same way.
 */
public final class ConformanceCorpus {

    static final Path RELATIVE = Path.of("shared", "conformance", "kestra-core");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();

    /** The {@code kestra-core} folder: {@code expected.json}, {@code NOTES.txt}, {@code flows/}. */
    public final Path root;
    /** expected.json, parsed. */
    public final JsonNode expected;

    private ConformanceCorpus(Path root) throws IOException {
        this.root = root;
        this.expected = JSON.readTree(root.resolve("expected.json").toFile());
    }

    /**
     * {@code MILLRACE_CONFORMANCE_DIR} (the {@code conformance} folder) when set; otherwise walks up from user.dir
     * until {@code shared/conformance/kestra-core/expected.json} exists.
     */
    public static ConformanceCorpus locate() throws IOException {
        String override = System.getenv("MILLRACE_CONFORMANCE_DIR");
        if (override != null && !override.isBlank()) {
            Path candidate = Path.of(override).resolve("kestra-core");
            if (!Files.isRegularFile(candidate.resolve("expected.json"))) {
                throw new IllegalStateException("MILLRACE_CONFORMANCE_DIR=" + override + " has no kestra-core/expected.json");
            }
            return new ConformanceCorpus(candidate);
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(RELATIVE);
            if (Files.isRegularFile(candidate.resolve("expected.json"))) {
                return new ConformanceCorpus(candidate);
            }
        }
        throw new IllegalStateException("Kestra conformance corpus not found: no " + RELATIVE.resolve("expected.json")
                + " in " + start + " or any parent directory. The corpus lives outside the repository, in shared/ beside the clone;"
                + " elsewhere, point MILLRACE_CONFORMANCE_DIR at its conformance folder.");
    }

    /** The expected.json entry of one flow. */
    public JsonNode flow(String flowKey) {
        JsonNode flow = expected.path("flows").path(flowKey);
        if (flow.isMissingNode()) {
            throw new IllegalStateException("expected.json has no flow '" + flowKey + "'");
        }
        return flow;
    }

    /** The flow YAML of an expected.json entry, as plain maps. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> flowYaml(JsonNode flow) throws IOException {
        return YAML.readValue(root.resolve(flow.path("file").asText()).toFile(), Map.class);
    }

    /** The source text of a corpus file named as in expected.json ({@code flows/x.yaml}). */
    public String source(String file) throws IOException {
        return Files.readString(root.resolve(file));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> tasks(Map<String, Object> flowYaml) {
        return (List<Map<String, Object>>) flowYaml.get("tasks");
    }
}
