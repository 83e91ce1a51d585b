package io.millrace.worker;

import io.millrace.core.expression.Expressions;
import io.millrace.core.expression.SecretSource;
import io.millrace.core.expression.TaskSecrets;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.task.Failures;
import io.millrace.worker.task.RunnableTask;
import io.millrace.worker.task.TaskInvocation;
import io.millrace.worker.task.TaskOutcome;
import io.millrace.worker.task.TaskRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs task records, each on a thread of {@link TaskThreads}: decodes it, finds its implementation, runs it while a
 * shared scheduler sends RUNNING heartbeats every third of its lease, then produces its final result.
 * Whatever a task throws (an {@link Error} too) becomes a FAILED result naming the task and the cause.
 * No attempt runs past its {@link Deadline}: the task's {@code timeout}, at most the worker's {@code task-max-duration}.
 * Then it ends FAILED, its result is sent and its thread interrupted; a task that ignores interruption is abandoned
 * (see {@link Attempt}): it runs on, but its slot is freed and its result dropped.
 * An attempt interrupted by {@link #stop()} produces nothing: the executor re-dispatches it after its lease. A kill
 * ({@link KillListener}) interrupts the attempts of that execution running here, each ended FAILED as at a deadline.
 * A record whose value is not a task record is dead-lettered ({@link TaskDeadLetters}) and its offset committed.
 * Each attempt gets its own {@link TaskSecrets}: its task's properties resolve {@code secret('NAME')} through them (and
 * nothing else does), and the SECRET inputs it decrypts ({@link SecretInputs}); its logs, outputs and error are masked
 * with those values.
 */
final class TaskRunner implements PollLoop.Starter {
    private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);

    private final TaskRegistry registry;
    private final Expressions expressions;
    private final SecretSource secrets;
    private final SecretInputs secretInputs;
    private final Attempt.Services services;
    private final TaskLogs logs;
    private final TaskDeadLetters deadLetters;
    private final Duration defaultLease;
    private final Duration taskMaxDuration;
    private final ExecutorService threads = TaskThreads.create();
    /** The attempts running here, by execution: a kill record stops those of its execution. */
    private final Map<String, Set<Attempt>> running = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    /**
     * @param defaultLease the lease of a task record that carries none (heartbeats go every third of it)
     * @param taskMaxDuration the longest any attempt runs ({@code task-max-duration})
     * @param secrets where {@code secret('NAME')} finds values
     * @param secretInputs decrypts the SECRET inputs a record carries
     */
    TaskRunner(TaskRegistry registry, Expressions expressions, SecretSource secrets, SecretInputs secretInputs,
               Attempt.Services services, TaskLogs logs, TaskDeadLetters deadLetters, Duration defaultLease,
               Duration taskMaxDuration) {
        this.registry = registry;
        this.expressions = expressions;
        this.secrets = secrets;
        this.secretInputs = secretInputs;
        this.services = services;
        this.logs = logs;
        this.deadLetters = deadLetters;
        this.defaultLease = defaultLease;
        this.taskMaxDuration = taskMaxDuration;
    }

    @Override
    public void start(ConsumerRecord<String, byte[]> record, Instant received, PollLoop.Slot slot) {
        threads.execute(() -> run(record, received, slot));
    }

    /** Interrupts the attempts of a killed execution that run here. */
    void kill(String executionId) {
        Set<Attempt> attempts = running.getOrDefault(executionId, Set.of());
        for (Attempt attempt : attempts) {
            if (attempt.kill()) {
                LOG.info("Interrupting a task of execution {}: it was killed", executionId);
            }
        }
    }

    /** Interrupts every running task; no new one starts. */
    void stop() {
        stopping = true;
        threads.shutdownNow();
    }

    private void run(ConsumerRecord<String, byte[]> record, Instant received, PollLoop.Slot slot) {
        Instant started = Instant.now();
        WorkerTaskRecord task;
        try {
            task = Topics.TASK_SERDE.decode(record.value());
        } catch (RuntimeException e) {
            // No execution to report to: an operator's to look at (the executor's lease covers a lost task, if any).
            String value = record.value() == null ? "no value (null)" : record.value().length + " bytes";
            deadLetters.send(record, TaskDeadLetters.UNREADABLE, "Unreadable task record (" + value + "): "
                    + e.getMessage(), () -> slot.done(true));
            return;
        }
        services.metrics().started(task.getTaskType(),
                System.currentTimeMillis() - task.getDispatchedAt().toEpochMilli());
        var taskSecrets = new TaskSecrets(secrets);
        var attempt = new Attempt(task, received, started, logs.attempt(task, taskSecrets), taskSecrets, services,
                () -> slot.done(true));
        running.computeIfAbsent(task.getExecutionId(), id -> ConcurrentHashMap.newKeySet()).add(attempt);
        attempt.beatEvery(heartbeatPeriodMillis(task));
        TaskOutcome outcome;
        try {
            outcome = execute(task, attempt);
        } catch (InterruptedException e) {
            if (stopping) {
                LOG.info("Task '{}' (execution {}, attempt {}) stopped with the worker", task.getTaskId(),
                        task.getExecutionId(), task.getAttempt());
                attempt.drop();
                slot.done(false);
                return;
            }
            outcome = TaskOutcome.failed("Task '" + task.getTaskId() + "': interrupted");
        } catch (Throwable e) {
            // its stack trace goes to this worker's log under the error id the task run's error names
            outcome = TaskOutcome.failed(Failures.unexpected(task.getTaskId(), e));
        } finally {
            attempt.returned();
            running.computeIfPresent(task.getExecutionId(), (id, attempts) -> {
                attempts.remove(attempt);
                return attempts.isEmpty() ? null : attempts;
            });
        }
        attempt.end(outcome);
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
            variables = Variables.withSecrets(secretInputs.decrypt(Json.readMap(task.getVariablesJson()),
                    attempt.secrets), attempt.secrets);
        } catch (IllegalArgumentException e) {
            return TaskOutcome.failed("Task '" + task.getTaskId() + "': unreadable task record: " + e.getMessage());
        } catch (SecretInputs.UndecryptableInputException e) {
            return TaskOutcome.failed("Task '" + task.getTaskId() + "': " + e.getMessage());
        }
        attempt.log.flow(flowVariable(variables, "namespace"), flowVariable(variables, "id"),
                Objects.toString(properties.get(TaskTypes.LOG_LEVEL), null));
        Object timeout = properties.get(TaskTypes.TIMEOUT);
        try {
            attempt.endAt(Deadline.of(timeout == null ? null : Duration.parse(timeout.toString()), taskMaxDuration));
        } catch (DateTimeParseException e) {
            return TaskOutcome.failed("Task '" + task.getTaskId() + "': property 'timeout' is not an ISO-8601 duration "
                    + "such as PT5M: '" + timeout + "'");
        }
        var invocation = new TaskInvocation(task.getTaskId(), task.getTaskType(), properties, variables, expressions,
                attempt.log);
        return implementation.get().execute(invocation);
    }

    private static String flowVariable(Map<String, Object> variables, String name) {
        return variables.get("flow") instanceof Map<?, ?> flow && flow.get(name) != null ? flow.get(name).toString() : null;
    }

    private long heartbeatPeriodMillis(WorkerTaskRecord task) {
        long lease = task.getLeaseMillis() > 0 ? task.getLeaseMillis() : defaultLease.toMillis();
        return Math.max(1, lease / 3);
    }
}
