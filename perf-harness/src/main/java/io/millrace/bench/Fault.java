package io.millrace.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** A fault the chaos suite injects: SIGKILL of one process of the engine, which is then started again. */
enum Fault {
    /** The only executor, while it owns every partition. */
    EXECUTOR,
    /** The worker, with task runs leased to it. */
    WORKER,
    /** The gateway, while REST clients wait on {@code ?wait=true}. */
    GATEWAY,
    /** The triggers role, while a Kafka trigger turns records into starts. */
    TRIGGERS,
    /** The Kafka broker, started again on the same data dir and port. */
    BROKER,
    /** One of two executors: a second one joins, then the first is killed, so its partitions move twice. */
    REBALANCE;

    /** The name on the command line and in the results. */
    String label() {
        return this == REBALANCE ? "executor-rebalance" : name().toLowerCase(Locale.ROOT);
    }

    /** Parses labels, e.g. {@code executor,worker}. */
    static Fault of(String label) {
        return Arrays.stream(values()).filter(f -> f.label().equals(label.trim())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Expected a fault among " + labels() + ", but got '" + label + "'"));
    }

    static List<String> labels() {
        return Arrays.stream(values()).map(Fault::label).toList();
    }
}
