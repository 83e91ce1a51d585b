package io.millrace.worker;

import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.task.RunnableTask;
import io.millrace.worker.task.TaskInvocation;
import io.millrace.worker.task.TaskOutcome;
import io.millrace.worker.task.TaskRegistry;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs task records, each on its own virtual thread: decodes it, finds its implementation, runs it while a
 * shared scheduler sends RUNNING heartbeats every third of its lease, then produces its final result.
 * Whatever a task throws (an {@link Error} too) becomes a FAILED result naming the task and the cause.
 * A task with a {@code timeout} that runs longer ends FAILED at its deadline: the result is sent then and the task's
 * thread is interrupted (a task that ignores interruption runs on, but its slot is freed and its result dropped).
 * An attempt interrupted by {@link #stop()} produces nothing: the executor re-dispatches it after its lease.
 */
final class TaskRunner implements PollLoop.Starter {
    private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);

    private final TaskRegistry registry;
    private final Expressions expressions;
    private final ResultPublisher publisher;
    private final TaskLogs logs;
    private final ScheduledExecutorService heartbeats;
    private final Duration defaultLease;
    private final WorkerMetrics metrics;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("millrace-task-", 0).factory());
    private volatile boolean stopping;

    TaskRunner(TaskRegistry registry, Expressions expressions, ResultPublisher publisher, TaskLogs logs,
               ScheduledExecutorService heartbeats, Duration defaultLease, WorkerMetrics metrics) {
        this.registry = registry;
        this.expressions = expressions;
        this.publisher = publisher;
        this.logs = logs;
        this.heartbeats = heartbeats;
        this.defaultLease = defaultLease;
        this.metrics = metrics;
    }

    @Override
    public void start(ConsumerRecord<String, byte[]> record, PollLoop.Slot slot) {
        threads.execute(() -> run(record, slot));
    }

    /** Interrupts every running task; no new one starts. */
    void stop() {
        stopping = true;
        threads.shutdownNow();
    }

    private void run(ConsumerRecord<String, byte[]> record, PollLoop.Slot slot) {
        WorkerTaskRecord task;
        try {
            task = Topics.TASK_SERDE.decode(record.value());
        } catch (RuntimeException e) {
            // Nobody to report to without an execution id: skip it (the executor's lease covers a lost task).
            LOG.error("Skipping the unreadable task record at {}-{}@{}", record.topic(), record.partition(),
                    record.offset(), e);
            slot.done(true);
            return;
        }
        metrics.started(task.getTaskType(), System.currentTimeMillis() - task.getDispatchedAt().toEpochMilli());
        var attempt = new Attempt(task, logs.attempt(task), () -> slot.done(true));
        ScheduledFuture<?> beating = attempt.beatEvery(heartbeatPeriodMillis(task));
        TaskOutcome outcome;
        Throwable thrown = null;
        try {
            outcome = execute(task, attempt);
        } catch (InterruptedException e) {
            if (stopping) {
                LOG.info("Task '{}' (execution {}, attempt {}) stopped with the worker", task.getTaskId(),
                        task.getExecutionId(), task.getAttempt());
                attempt.abandon();
                slot.done(false);
                return;
            }
            outcome = TaskOutcome.failed("Task '" + task.getTaskId() + "': interrupted");
        } catch (Throwable e) {
            thrown = e;
            outcome = TaskOutcome.failed("Task '" + task.getTaskId() + "': " + describe(e));
        } finally {
            if (beating != null) {
                beating.cancel(false);
            }
            attempt.cancelDeadline();
        }
        if (attempt.end(outcome) && thrown != null) {
            attempt.log.log("TRACE", stackTrace(thrown));
        }
    }

    private TaskOutcome execute(WorkerTaskRecord task, Attempt attempt) throws Exception {
        Optional<RunnableTask> implementation = registry.find(task.getTaskType());
        if (implementation.isEmpty()) {
            return TaskOutcome.failed("Task '" + task.getTaskId() + "': unknown task type '" + task.getTaskType()
                    + "'; this worker runs " + new TreeSet<>(registry.types()));
        }
        Map<String, Object> properties;
        Map<String, Object> variables;
        try {
            properties = Json.readMap(task.getPropertiesJson());
            variables = Json.readMap(task.getVariablesJson());
        } catch (IllegalArgumentException e) {
            return TaskOutcome.failed("Task '" + task.getTaskId() + "': unreadable task record: " + e.getMessage());
        }
        attempt.log.flow(flowVariable(variables, "namespace"), flowVariable(variables, "id"),
                Objects.toString(properties.get(TaskTypes.LOG_LEVEL), null));
        Object timeout = properties.get(TaskTypes.TIMEOUT);
        if (timeout != null) {
            try {
                attempt.endAfter(Duration.parse(timeout.toString()), Thread.currentThread());
            } catch (DateTimeParseException e) {
                return TaskOutcome.failed("Task '" + task.getTaskId() + "': property 'timeout' is not an ISO-8601 duration "
                        + "such as PT5M: '" + timeout + "'");
            }
        }
        var invocation = new TaskInvocation(task.getTaskId(), task.getTaskType(), properties, variables, expressions,
                attempt.log);
        return implementation.get().execute(invocation);
    }

    private static String flowVariable(Map<String, Object> variables, String name) {
        return variables.get("flow") instanceof Map<?, ?> flow && flow.get(name) != null ? flow.get(name).toString() : null;
    }

    private static String stackTrace(Throwable e) {
        var out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    private long heartbeatPeriodMillis(WorkerTaskRecord task) {
        long lease = task.getLeaseMillis() > 0 ? task.getLeaseMillis() : defaultLease.toMillis();
        return Math.max(1, lease / 3);
    }

    private static String describe(Throwable e) {
        return e.getClass().getSimpleName() + ": " + (e.getMessage() != null ? e.getMessage() : "(no message)");
    }

    /**
     * One attempt's heartbeats and final result, which comes from the task or from its deadline, whichever is first.
     * The lock orders them: once the final result is sent no heartbeat or other result follows it, and the
     * idempotent producer keeps that order on the results topic.
     * A lock, not {@code synchronized}, so a virtual thread blocked in send does not pin its carrier.
     */
    private final class Attempt {
        private final WorkerTaskRecord task;
        private final TaskLogs.AttemptLog log;
        /** Frees the attempt's slot once its final result is sent. */
        private final Runnable settled;
        private final ReentrantLock lock = new ReentrantLock();
        private final long startedNanos = System.nanoTime();
        private boolean ended;
        private ScheduledFuture<?> deadline;

        Attempt(WorkerTaskRecord task, TaskLogs.AttemptLog log, Runnable settled) {
            this.task = task;
            this.log = log;
            this.settled = settled;
        }

        /** The first heartbeat after one period: a task shorter than that sends none. Null once stopping. */
        ScheduledFuture<?> beatEvery(long periodMillis) {
            try {
                return heartbeats.scheduleAtFixedRate(this::beat, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                return null;
            }
        }

        private void beat() {
            lock.lock();
            try {
                if (!ended) {
                    publisher.heartbeat(task);
                }
            } finally {
                lock.unlock();
            }
        }

        /** At {@code timeout} from now, ends the attempt FAILED and interrupts {@code runner}, if it has not ended. */
        void endAfter(Duration timeout, Thread runner) {
            try {
                deadline = heartbeats.schedule(() -> timedOut(timeout, runner), timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                // stopping: the attempt is abandoned anyway
            }
        }

        void cancelDeadline() {
            if (deadline != null) {
                deadline.cancel(false);
            }
        }

        private void timedOut(Duration timeout, Thread runner) {
            String error = "Task '" + task.getTaskId() + "': Timeout after " + timeout;
            StackTraceElement[] at = runner.getStackTrace();
            if (end(TaskOutcome.failed(error))) {
                LOG.warn("{} (execution {}, attempt {}); interrupting it", error, task.getExecutionId(), task.getAttempt());
                runner.interrupt();
                var where = new StringBuilder("Timeout after " + timeout + "; the task was at:");
                for (StackTraceElement frame : at) {
                    where.append("\n\tat ").append(frame);
                }
                log.log("TRACE", where.toString());
            }
        }

        /** Sends the final result unless one was sent already, a failure's error logged first; true when this call sent it. */
        boolean end(TaskOutcome outcome) {
            lock.lock();
            try {
                if (ended) {
                    return false;
                }
                ended = true;
                if (outcome.state() == State.FAILED && outcome.error() != null) {
                    log.log("ERROR", TaskRun.ownMessage(task.getTaskId(), outcome.error()));
                }
                publisher.result(task, outcome.state(), outcome.outputs(), outcome.error(), settled);
                metrics.ended(task.getTaskType(), outcome.state(), System.nanoTime() - startedNanos);
                return true;
            } finally {
                lock.unlock();
            }
        }

        void abandon() {
            lock.lock();
            try {
                ended = true;
            } finally {
                lock.unlock();
            }
        }
    }
}
