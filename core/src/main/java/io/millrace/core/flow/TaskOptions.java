package io.millrace.core.flow;

import java.time.Duration;

/**
 * What every task may carry, whatever its type. {@code retry}, {@code timeout}, {@code runIf} and
 * {@code logLevel} may be null (none).
 *
 * @param runIf rendered before the run starts; a false value ends the run SKIPPED
 * @param allowFailure a run that ends FAILED counts as WARNING for its parent
 * @param allowWarning a run that ends WARNING counts as SUCCESS for its parent
 * @param disabled the task gets no run at all
 */
public record TaskOptions(
        RetryPolicy retry,
        Duration timeout,
        String runIf,
        boolean allowFailure,
        boolean allowWarning,
        boolean disabled,
        String workerGroup,
        String description,
        String logLevel) {

    public static final TaskOptions DEFAULTS =
            new TaskOptions(null, null, null, false, false, false, TaskDef.DEFAULT_WORKER_GROUP, null, null);

    public TaskOptions withTimeout(Duration value) {
        return new TaskOptions(retry, value, runIf, allowFailure, allowWarning, disabled, workerGroup, description, logLevel);
    }

    public TaskOptions withDisabled(boolean value) {
        return new TaskOptions(retry, timeout, runIf, allowFailure, allowWarning, value, workerGroup, description, logLevel);
    }
}
