package io.millrace.app;

import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A flow the executor crash test runs, with an INT input {@code n}, how many executions of it it starts, and what
 * each execution's terminal snapshot holds when no executor dies: the task runs of each task, and the attempts of
 * each run that were not lost.
 */
enum CrashFlow {
    /** Two worker tasks one after the other: one run each, one attempt each. */
    LINEAR("""
            id: crash
            namespace: test.crash
            tasks:
              - id: first
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  n: "{{ inputs.n }}"
              - id: second
                type: io.kestra.plugin.core.log.Log
                message: "done {{ outputs.first.values.n }}"
            inputs:
              - id: n
                type: INT
            """, 200, Duration.ofMillis(20), Map.of("first", 1, "second", 1), Map.of()),

    /**
     * A Parallel of a ForEach over 20 values, five at a time, and a task that fails its first attempt and passes its
     * second; 23 runs: the Parallel's, the ForEach's, one per value (range includes both ends) and the flaky task's,
     * which has two attempts. {@code taskrun.attemptsCount} counts the attempts before the current one that were not
     * lost, so the flaky task fails exactly once even if a lease runs out while the executor is down.
     */
    NESTED("""
            id: crash-nested
            namespace: test.crash
            tasks:
              - id: parallel
                type: io.kestra.plugin.core.flow.Parallel
                tasks:
                  - id: each
                    type: io.kestra.plugin.core.flow.ForEach
                    values: "{{ range(1, 20) }}"
                    concurrencyLimit: 5
                    tasks:
                      - id: item
                        type: io.kestra.plugin.core.output.OutputValues
                        values:
                          v: "{{ taskrun.value }}"
                  - id: flaky
                    type: io.kestra.plugin.core.execution.Fail
                    condition: "{{ taskrun.attemptsCount == 0 }}"
                    errorMessage: "first attempt of {{ inputs.n }}"
                    retry: {type: constant, interval: PT0.2S, maxAttempt: 3}
            inputs:
              - id: n
                type: INT
            """, 40, Duration.ofMillis(100), Map.of("parallel", 1, "each", 1, "item", 20, "flaky", 1), Map.of("flaky", 2)),

    /**
     * A Pause that resumes by itself after two seconds between two worker tasks: killed while most executions wait,
     * each resumes once (its run paused once), its delay kept across the restart.
     */
    PAUSED("""
            id: crash-paused
            namespace: test.crash
            tasks:
              - id: first
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  n: "{{ inputs.n }}"
              - id: wait
                type: io.kestra.plugin.core.flow.Pause
                delay: PT2S
              - id: second
                type: io.kestra.plugin.core.log.Log
                message: "done {{ outputs.first.values.n }}"
            inputs:
              - id: n
                type: INT
            """, 40, Duration.ofMillis(100), Map.of("first", 1, "wait", 1, "second", 1), Map.of()),

    /**
     * A Subflow between two worker tasks, whose child pauses a second: killed while parents wait on children spread
     * over the partitions, each child starts once and each parent hears of its end once.
     */
    SUBFLOW("""
            id: crash-parent
            namespace: test.crash
            tasks:
              - id: first
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  n: "{{ inputs.n }}"
              - id: call
                type: io.kestra.plugin.core.flow.Subflow
                namespace: test.crash
                flowId: crash-child
                inputs:
                  n: "{{ outputs.first.values.n }}"
              - id: second
                type: io.kestra.plugin.core.log.Log
                message: "done {{ outputs.call.executionId }}"
            inputs:
              - id: n
                type: INT
            """, 50, Duration.ofMillis(80), Map.of("first", 1, "call", 1, "second", 1), Map.of(), """
            id: crash-child
            namespace: test.crash
            tasks:
              - id: wait
                type: io.kestra.plugin.core.flow.Pause
                delay: PT1S
            inputs:
              - id: n
                type: INT
            """),

    /**
     * A concurrency limit of two: killed while most executions wait QUEUED, each starts once, in its turn, and never
     * more than two run at once.
     */
    LIMITED("""
            id: crash-limited
            namespace: test.crash
            concurrency:
              limit: 2
            tasks:
              - {id: nap, type: io.kestra.plugin.core.flow.Sleep, duration: PT0.1S}
            inputs:
              - id: n
                type: INT
            """, 30, Duration.ofMillis(40), Map.of("nap", 1), Map.of());

    final String yaml;
    final int executions;
    /** Between two starts: the burst lasts about four seconds, so the kill lands in its middle. */
    final Duration startEvery;
    /** Task id to its runs in one execution. */
    final Map<String, Integer> runsPerTask;
    /** Task id to its runs' attempts that were not lost, where more than one. */
    private final Map<String, Integer> attemptsPerRun;

    /** Other flows it calls, posted with it. */
    final List<String> calls;

    CrashFlow(String yaml, int executions, Duration startEvery, Map<String, Integer> runsPerTask,
            Map<String, Integer> attemptsPerRun, String... calls) {
        this.yaml = yaml;
        this.calls = List.of(calls);
        this.executions = executions;
        this.startEvery = startEvery;
        this.runsPerTask = runsPerTask;
        this.attemptsPerRun = attemptsPerRun;
    }

    Flow flow() {
        return parse(yaml);
    }

    /** The flow and the flows it calls. */
    List<Flow> flows() {
        var flows = new ArrayList<>(List.of(flow()));
        calls.forEach(call -> flows.add(parse(call)));
        return flows;
    }

    private Flow parse(String source) {
        try {
            return new FlowParser().parse(source).withRevision(1);
        } catch (FlowValidationException e) {
            throw new IllegalStateException("Expected the flows of " + this + " to be valid, but " + e.getMessage(), e);
        }
    }

    int attemptsPerRun(String taskId) {
        return attemptsPerRun.getOrDefault(taskId, 1);
    }

    String executionId(int i) {
        return name().toLowerCase() + "-" + i;
    }
}
