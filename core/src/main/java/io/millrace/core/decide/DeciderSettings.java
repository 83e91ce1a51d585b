package io.millrace.core.decide;

import java.time.Duration;

/**
 * @param lease how long a worker may hold an attempt without a result or heartbeat
 * @param maxLostAttempts how many attempts may be lost to dead workers before the task run fails
 * @param retention how long a finished execution is kept (its state, outputs and snapshot) before it is purged
 * @param maxTaskRuns the most task runs one execution may create ({@code max-task-runs}); a run past it fails
 *     at once, naming the setting, and so does its execution
 * @param maxFlowableConcurrency the most lanes of one flowable (the branches of a Parallel, the iterations of a
 *     ForEach) running at once, whatever its own concurrency ({@code max-flowable-concurrency}): a ForEach over
 *     10,000 values without a limit still runs, started in steps of at most this many, so that no step of the
 *     executor dispatches without bound
 * @param maxSubflowDepth how deep subflows may nest ({@code max-subflow-depth}): a Subflow run that would start an
 *     execution deeper fails, naming the setting, so that a flow calling itself stops
 */
public record DeciderSettings(Duration lease, int maxLostAttempts, Duration retention, int maxTaskRuns,
        int maxFlowableConcurrency, int maxSubflowDepth) {

    public static final int DEFAULT_MAX_TASK_RUNS = 100_000;
    public static final int DEFAULT_MAX_FLOWABLE_CONCURRENCY = 1_000;
    public static final int DEFAULT_MAX_SUBFLOW_DEPTH = 20;

    public DeciderSettings {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("Expected a positive lease, but got " + lease);
        }
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("Expected a positive retention, but got " + retention);
        }
        if (maxLostAttempts < 1) {
            throw new IllegalArgumentException("Expected maxLostAttempts >= 1, but got " + maxLostAttempts);
        }
        if (maxTaskRuns < 1 || maxFlowableConcurrency < 1 || maxSubflowDepth < 1) {
            throw new IllegalArgumentException("Expected maxTaskRuns, maxFlowableConcurrency and maxSubflowDepth >= 1, "
                    + "but got " + maxTaskRuns + ", " + maxFlowableConcurrency + " and " + maxSubflowDepth);
        }
    }

    /** With the default bound on subflow depth. */
    public DeciderSettings(Duration lease, int maxLostAttempts, Duration retention, int maxTaskRuns,
            int maxFlowableConcurrency) {
        this(lease, maxLostAttempts, retention, maxTaskRuns, maxFlowableConcurrency, DEFAULT_MAX_SUBFLOW_DEPTH);
    }

    /** With the default bounds on task runs and flowable concurrency. */
    public DeciderSettings(Duration lease, int maxLostAttempts, Duration retention) {
        this(lease, maxLostAttempts, retention, DEFAULT_MAX_TASK_RUNS, DEFAULT_MAX_FLOWABLE_CONCURRENCY,
                DEFAULT_MAX_SUBFLOW_DEPTH);
    }
}
