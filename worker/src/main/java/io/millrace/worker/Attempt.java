package io.millrace.worker;

import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.core.expression.TaskSecrets;
import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.task.Failures;
import io.millrace.worker.task.TaskOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt's heartbeats and final result, which comes from the task or from its deadline, whichever is first.
 * The lock orders them: once the final result is sent no heartbeat or other result follows it, and the idempotent
 * producer keeps that order on the results topic.
 * <p>
 * At its deadline, or when its execution is killed, the attempt ends FAILED (its slot is freed once that result is
 * sent) and its thread is interrupted.
 * A thread still in the task {@link #ABANDON_AFTER} later ignored the interruption: the attempt is abandoned, counted
 * and logged with where it runs, and the thread is left to run on (Java cannot stop a thread); its result, if it ever
 * has one, is dropped. The thread is only ever interrupted while it runs this attempt, never once it went back to
 * the pool for another task.
 * <p>
 * The attempt's {@link TaskSecrets} hold the secrets its task resolved: its log masks them, and so does its final
 * result (outputs and error) before it is logged or sent.
 */
final class Attempt {
    /** How long an interrupted task may take to stop before it counts as abandoned. */
    static final Duration ABANDON_AFTER = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(Attempt.class);

    /** What every attempt of a worker shares. */
    record Services(ResultPublisher publisher, ScheduledExecutorService timers, WorkerMetrics metrics) {
    }

    private enum Run { RUNNING, RETURNED, ABANDONED }

    final TaskLogs.AttemptLog log;
    final TaskSecrets secrets;
    private final WorkerTaskRecord task;
    /** When the worker's poll returned the task, and when a thread began it. */
    private final Instant received;
    private final Instant started;
    private final Services services;
    /** Frees the attempt's slot once its final result is sent. */
    private final Runnable settled;
    private final Thread runner = Thread.currentThread();
    private final ReentrantLock lock = new ReentrantLock();
    private final long startedNanos = System.nanoTime();
    private boolean ended;
    private Run run = Run.RUNNING;
    private ScheduledFuture<?> beating;
    private ScheduledFuture<?> deadline;

    /** Made on the thread that runs the task: that thread is the one interrupted at the deadline. */
    Attempt(WorkerTaskRecord task, Instant received, Instant started, TaskLogs.AttemptLog log, TaskSecrets secrets,
            Services services, Runnable settled) {
        this.task = task;
        this.received = received;
        this.started = started;
        this.log = log;
        this.secrets = secrets;
        this.services = services;
        this.settled = settled;
    }

    /** Heartbeats, the first after one period: a task shorter than that sends none. None once stopping. */
    void beatEvery(long periodMillis) {
        lock.lock();
        try {
            beating = services.timers().scheduleAtFixedRate(this::beat, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // stopping: the attempt is dropped anyway
        } finally {
            lock.unlock();
        }
    }

    /** At {@code deadline} from now, ends the attempt FAILED and interrupts its thread, if it has not ended. */
    void endAt(Deadline deadline) {
        lock.lock();
        try {
            this.deadline = services.timers().schedule(() -> timedOut(deadline), deadline.after().toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // stopping: the attempt is dropped anyway
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends the final result unless one was sent already, a failure's error logged first; true when this call sent it.
     * Heartbeats stop. Its outputs and error are masked first.
     */
    boolean end(TaskOutcome outcome) {
        lock.lock();
        try {
            if (ended) {
                return false;
            }
            ended = true;
            cancel(beating);
            String error = secrets.mask(outcome.error());
            if (outcome.state() == State.FAILED && error != null) {
                log.log("ERROR", TaskRun.ownMessage(task.getTaskId(), error));
            }
            services.publisher().result(task, outcome.state(), secrets.maskOutputs(outcome.outputs()), error,
                    new WorkerTimes(received, started, Instant.now()), secrets::mask, settled);
            services.metrics().ended(task.getTaskType(), outcome.state(), System.nanoTime() - startedNanos);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The worker stops: no result, no more heartbeats (the executor re-dispatches the attempt after its lease). */
    void drop() {
        lock.lock();
        try {
            ended = true;
            cancel(beating);
        } finally {
            lock.unlock();
        }
    }

    /** The task's thread is back from the task: its deadline goes, and an abandoned attempt counts as running no more. */
    void returned() {
        lock.lock();
        try {
            cancel(deadline);
            if (run == Run.ABANDONED) {
                services.metrics().abandonedReturned();
                LOG.warn("Abandoned task '{}' (execution {}, attempt {}) returned after all", task.getTaskId(),
                        task.getExecutionId(), task.getAttempt());
            }
            run = Run.RETURNED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Its execution was killed: as at a deadline, the attempt ends FAILED (the executor, which killed the run, finds the
     * result stale) and its thread is interrupted, then abandoned if it does not stop. True when it was still running.
     */
    boolean kill() {
        if (!end(TaskOutcome.failed("Task '" + task.getTaskId() + "': stopped, its execution was killed"))) {
            return false;
        }
        interrupt();
        return true;
    }

    private void beat() {
        lock.lock();
        try {
            if (!ended) {
                services.publisher().heartbeat(task);
            }
        } finally {
            lock.unlock();
        }
    }

    private void timedOut(Deadline deadline) {
        StackTraceElement[] at = stackWhileRunning();
        if (!end(TaskOutcome.failed("Task '" + task.getTaskId() + "': " + deadline.reason()))) {
            return;
        }
        // where it was is the worker's, not the flow's: in this worker's log, under the id the task's line names
        String id = Failures.errorId("Task '" + task.getTaskId() + "' (execution " + task.getExecutionId()
                + ", attempt " + task.getAttempt() + "): " + deadline.reason() + "; interrupting it; it was at:"
                + frames(at), null);
        interrupt();
        log.log("TRACE", deadline.reason() + "; the worker's log has where the task was under error id " + id);
    }

    /** Interrupts the task's thread while it runs this attempt, and abandons it if it has not stopped a while later. */
    private void interrupt() {
        lock.lock();
        try {
            if (run == Run.RUNNING) {
                runner.interrupt();
                services.timers().schedule(this::abandonIfRunning, ABANDON_AFTER.toNanos(), TimeUnit.NANOSECONDS);
            }
        } catch (RejectedExecutionException e) {
            // stopping: the worker's threads are interrupted anyway
        } finally {
            lock.unlock();
        }
    }

    private void abandonIfRunning() {
        StackTraceElement[] at;
        lock.lock();
        try {
            if (run != Run.RUNNING) {
                return;
            }
            run = Run.ABANDONED;
            at = runner.getStackTrace();
        } finally {
            lock.unlock();
        }
        services.metrics().abandoned();
        String what = "did not stop within " + ABANDON_AFTER + " of its interruption: abandoned, its thread "
                + runner.getName() + " runs on";
        LOG.error("Task '{}' of type {} (execution {}, attempt {}) {}; it is at:{}", task.getTaskId(), task.getTaskType(),
                task.getExecutionId(), task.getAttempt(), what, frames(at));
        log.log("WARN", "The task " + what);
    }

    /** The task's stack, or none once its thread is back from it (and may run another task). */
    private StackTraceElement[] stackWhileRunning() {
        lock.lock();
        try {
            return run == Run.RUNNING ? runner.getStackTrace() : new StackTraceElement[0];
        } finally {
            lock.unlock();
        }
    }

    private static String frames(StackTraceElement[] at) {
        var where = new StringBuilder();
        for (StackTraceElement frame : at) {
            where.append("\n\tat ").append(frame);
        }
        return where.toString();
    }

    private static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }
}
