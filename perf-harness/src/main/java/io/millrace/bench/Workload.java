package io.millrace.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** The benchmark workloads: each a flow file under {@code workloads/} and the inputs of one execution. */
public enum Workload {
    W1("w1", 2),
    W2("w2", 2),
    W3("w3", 1),
    W4("w4", 1);

    public static final String NAMESPACE = "millrace.bench";

    private final String flowId;
    private final int workerTasks;

    Workload(String flowId, int workerTasks) {
        this.flowId = flowId;
        this.workerTasks = workerTasks;
    }

    public String flowId() {
        return flowId;
    }

    /** The flow's YAML source, as shipped in the jar. */
    public String source() {
        try (InputStream in = Workload.class.getResourceAsStream("/workloads/" + flowId + ".yaml")) {
            if (in == null) {
                throw new IllegalStateException("workloads/" + flowId + ".yaml is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Kafka hops of one execution: the create command into the executor, a dispatch and a result per worker
     * task, and the terminal snapshot out.
     */
    public int hops() {
        return 2 + 2 * workerTasks;
    }

    /** The inputs of the n-th execution. */
    public Map<String, Object> inputs(long n) {
        if (this != W2) {
            return Map.of();
        }
        return Map.of("order", Map.of("order_id", n, "first_name", "Ada", "last_name", "Lovelace",
                "address", Map.of("city", "London", "country", "UK"),
                "items", List.of(Map.of("quantity", 2, "price_per_unit", 10.5), Map.of("quantity", 1, "price_per_unit", 4))));
    }
}
