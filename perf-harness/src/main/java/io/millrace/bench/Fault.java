package io.millrace.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** A fault the chaos suite injects: SIGKILL (or, to scale, SIGTERM) to one process of the engine, then started again. */
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
    /**
     * One of two executors: a second one joins and takes its share, then the first is killed, so its partitions move
     * twice.
     */
    REBALANCE,
    /**
     * A scale-out and back: a second executor joins and takes its share, then the first is stopped with SIGTERM (it
     * closes and leaves its group, as a scale-down or a rolling update stops it), and started again: three rebalances,
     * none waiting for a session to expire.
     */
    SCALE;

    /** Whether a second executor joins first (and is stopped after the fault's pause, leaving one as before). */
    boolean addsExecutor() {
        return this == REBALANCE || this == SCALE;
    }

    /** The name on the command line and in the results. */
    String label() {
        return switch (this) {
            case REBALANCE -> "executor-rebalance";
            case SCALE -> "executor-scale";
            default -> name().toLowerCase(Locale.ROOT);
        };
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
