package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.RetryPolicy;
import io.millrace.core.flow.TaskDef;
import java.time.Instant;

/**
 * The executor's timers, made from the state they guard: the live decision and {@link ImpliedEffects} (what a state
 * implies, sent again after a crash) make each one here, so a timer sent again takes the key of the one it replaces.
 */
final class Timers {
    private Timers() {
    }

    /** The lease of a worker task's attempt. */
    static Timer lease(String executionId, String taskRunId, int attempt, Instant until) {
        return new Timer(executionId, Timer.Kind.LEASE, taskRunId, attempt, until);
    }

    /** A flowable attempt's time limit, from when the attempt started. */
    static Timer timeout(String executionId, TaskRun run, TaskDef task) {
        Attempt attempt = run.currentAttempt().orElseThrow();
        return new Timer(executionId, Timer.Kind.TIMEOUT, run.id(), attempt.number(),
                attempt.histories().getFirst().date().plus(task.options().timeout()));
    }

    /** The end of a PAUSED run's delay or timeout, from when it paused. */
    static Timer resume(String executionId, TaskRun run, Pause pause) {
        Instant pausedAt = run.histories().reversed().stream().filter(h -> h.state() == State.PAUSED)
                .map(StateHistory::date).findFirst().orElseThrow();
        return new Timer(executionId, Timer.Kind.RESUME, run.id(), run.currentAttempt().orElseThrow().number(),
                pausedAt.plus(pause.wakeAfter()));
    }

    /** The end of a RETRYING run's wait, at {@code at}; {@code attempt} is the one that failed. */
    static Timer retry(String executionId, String taskRunId, int attempt, Instant at) {
        return new Timer(executionId, Timer.Kind.RETRY, taskRunId, attempt, at);
    }

    /** The retry timer a RETRYING run waits for, at the date its policy gave when its attempt failed. */
    static Timer retry(String executionId, TaskRun run, RetryPolicy policy) {
        Attempt failed = run.currentAttempt().orElseThrow();
        Instant failedAt = failed.histories().getLast().date();
        Instant at = policy == null ? null : nextAttemptAt(policy, run, failedAt);
        return retry(executionId, run.id(), failed.number(), at == null ? failedAt : at);
    }

    /**
     * When the execution that retries a RETRIED one starts: its failed run's policy, counting the executions of the
     * chain as attempts, from when it ended; null when the policy allows no more.
     */
    static Instant nextExecutionAt(RetryPolicy retry, Execution execution, Instant endedAt) {
        return retry.nextAttemptAt(execution.lineage().attempt(), execution.startDate(), endedAt,
                execution.id().hashCode());
    }

    /** The start of the execution that retries a RETRIED one, at {@code at}. */
    static Timer retryExecution(String executionId, Instant at) {
        return new Timer(executionId, Timer.Kind.RETRY_EXECUTION, "", 0, at);
    }

    /** The end of a finished execution's retention. */
    static Timer purge(Execution execution, Instant endedAt, DeciderSettings settings) {
        return Timer.purge(execution.id(), execution.restarts(), endedAt.plus(settings.retention()));
    }

    /**
     * When a run whose current attempt failed at {@code failedAt} starts its next one, by its retry policy, or null
     * when the policy allows no more. The same for the live decision and for re-emission, whose retry timer must take
     * the key and time of the one it replaces (a random wait is drawn from the run's id).
     */
    static Instant nextAttemptAt(RetryPolicy retry, TaskRun run, Instant failedAt) {
        Instant firstStart = run.attempts().getFirst().histories().getFirst().date();
        return retry.nextAttemptAt(run.ownAttempts(), firstStart, failedAt, run.id().hashCode());
    }
}
