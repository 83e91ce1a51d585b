package io.millrace.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The benchmark workloads: each a flow file under {@code workloads/}, the inputs of one execution, what one execution
 * costs the engine, and the sweep that measures it when the command line names no rates.
 */
public enum Workload {
    W1("w1", 2, 2, SweepShape.LIGHT),
    W2("w2", 2, 2, SweepShape.LIGHT),
    W3("w3", 1, 1, SweepShape.LIGHT),
    W4("w4", 1, 1, SweepShape.LIGHT),
    /**
     * Kestra's loop benchmark: the ForEach's own run plus one run per value (the engine names a run by execution, task,
     * parent run and value), 101; the 100 values run at once (concurrencyLimit 0), so one worker task deep.
     */
    W5("w5", 101, 1, SweepShape.LOOP),
    /**
     * Kestra's branching benchmark: five If runs, each followed by the one Log of its {@code then}, 10; the executor
     * decides an If itself, so the five Logs are the only hops to a worker, one after another.
     */
    W6("w6", 10, 5, SweepShape.BRANCHES),
    /**
     * Kestra 0.22's realtime benchmark: its {@code realtime-kafka-json} flow as published (a Kafka RealtimeTrigger, the
     * JSONata transform, OutputValues), started by JSON orders a plain producer writes to the trigger's topic; the
     * trigger's create is one more hop before the executor's.
     */
    W7("realtime-kafka-json", 2, 2, SweepShape.TRIGGER),
    /**
     * A parent whose one task, a Subflow that waits, starts W1's shape as a child: the parent's run, then the child's
     * two worker tasks; the child's start and its end notice are two more hops through the executor.
     */
    W8("w8", 1, 2, SweepShape.LIGHT, "w8-child");

    public static final String NAMESPACE = "millrace.bench";

    private final String flowId;
    private final int taskRuns;
    private final int chainedWorkerTasks;
    private final SweepShape standardSweep;

    /** The flows it calls (a subflow's), deployed before it. */
    private final List<String> calls;

    Workload(String flowId, int taskRuns, int chainedWorkerTasks, SweepShape standardSweep, String... calls) {
        this.flowId = flowId;
        this.calls = List.of(calls);
        this.taskRuns = taskRuns;
        this.chainedWorkerTasks = chainedWorkerTasks;
        this.standardSweep = standardSweep;
    }

    public String flowId() {
        return flowId;
    }

    /** Task runs the engine creates for one successful execution, flowable tasks' own runs included. */
    public int taskRuns() {
        return taskRuns;
    }

    /** The sweep run when the command line gives no rates, window or drain. */
    public SweepShape standardSweep() {
        return standardSweep;
    }

    /** The flow's YAML source, as shipped in the jar. */
    public String source() {
        return resource(flowId);
    }

    /** The ids of the flows it calls, each shipped as {@code workloads/<id>.yaml}: deploy them first. */
    public List<String> calls() {
        return calls;
    }

    /** A flow's YAML source, as shipped in the jar. */
    public static String resource(String flowId) {
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
     * Kafka hops on the longest path of one execution: the create command into the executor, a dispatch and a result
     * per worker task that has to wait for the one before it, a subflow's start and end notice, and the terminal
     * snapshot out.
     */
    public int hops() {
        return (this == W7 ? 3 : 2) + 2 * chainedWorkerTasks + 2 * calls.size();
    }

    /** True for a workload whose executions a trigger starts (the harness produces its events, not its starts). */
    public boolean triggered() {
        return this == W7;
    }

    /** The inputs of the n-th execution. */
    public Map<String, Object> inputs(long n) {
        return this != W2 ? Map.of() : Map.of("order", order(n));
    }

    /** The n-th order of W2's input and W7's events. */
    static Map<String, Object> order(long n) {
        return Map.of("order_id", n, "first_name", "Ada", "last_name", "Lovelace",
                "address", Map.of("city", "London", "country", "UK"),
                "items", List.of(Map.of("quantity", 2, "price_per_unit", 10.5), Map.of("quantity", 1, "price_per_unit", 4)));
    }

    /**
     * The offered rates in executions/s, the measurement window and the drain of a sweep. Rates of a few executions/s
     * need a longer window than W1's: the sweep stops when fewer than 95 % of the offered executions, less one,
     * completed in the window's second half, and at 1/s a 7.5 s half holds only seven or eight of them.
     */
    public record SweepShape(List<Double> ratesPerS, Duration duration, Duration drain) {
        /** Executions of a few task runs: W1's sweep, in under 5 minutes. */
        static final SweepShape LIGHT = new SweepShape(List.of(50.0, 100.0, 200.0, 400.0, 800.0, 1600.0),
                Duration.ofSeconds(15), Duration.ofSeconds(10));
        /** 100 times heavier executions; Kestra took 8 to 9 s for one, so their stragglers get 30 s. */
        static final SweepShape LOOP = new SweepShape(List.of(1.0, 2.0, 5.0, 10.0, 15.0, 20.0),
                Duration.ofSeconds(60), Duration.ofSeconds(30));
        /** Kestra's rates per minute (100 and 800 are its published points), then on to find where it stops. */
        /** Kestra's published rates for its realtime flow (10 to 200 records/s), then on to the 1,000/s goal and past. */
        static final SweepShape TRIGGER = new SweepShape(List.of(10.0, 100.0, 200.0, 500.0, 1000.0, 1500.0),
                Duration.ofSeconds(20), Duration.ofSeconds(10));
        static final SweepShape BRANCHES = new SweepShape(
                perMinute(100, 200, 400, 800, 1_600, 3_200, 6_400), Duration.ofSeconds(60), Duration.ofSeconds(10));

        public SweepShape {
            ratesPerS = List.copyOf(ratesPerS);
        }

        private static List<Double> perMinute(double... rates) {
            return java.util.Arrays.stream(rates).mapToObj(rate -> rate / 60).toList();
        }
    }
}
