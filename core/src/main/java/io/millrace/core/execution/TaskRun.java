package io.millrace.core.execution;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * One run of one task inside an execution. {@code parentTaskRunId} is the run of the flowable it runs in (null at
 * the top); {@code value} is the loop value it runs for (set on the children of a ForEach iteration, null otherwise);
 * {@code iteration} is that iteration's index (null outside loops), so a loop over equal values still has distinct
 * runs. {@code error} says why an ended run ended as it did; null otherwise.
 * Outputs are not here: they live in the outputs store, so a state update never copies them.
 */
public record TaskRun(
        String id,
        String taskId,
        String parentTaskRunId,
        String value,
        Integer iteration,
        State state,
        List<StateHistory> histories,
        List<Attempt> attempts,
        String error) {

    public TaskRun {
        histories = List.copyOf(histories);
        attempts = List.copyOf(attempts);
    }

    public static TaskRun created(String id, String taskId, String parentTaskRunId, String value, Integer iteration,
            Instant at) {
        return new TaskRun(id, taskId, parentTaskRunId, value, iteration, State.CREATED,
                List.of(new StateHistory(State.CREATED, at)), List.of(), null);
    }

    /**
     * An error as the task's own log line says it: without the {@code Task '<id>': } that names the task in an
     * execution's error, since a log line names its task apart (Kestra's logs and {@code errorLogs()} do the same).
     */
    public static String ownMessage(String taskId, String error) {
        String prefix = "Task '" + taskId + "': ";
        return error != null && error.startsWith(prefix) ? error.substring(prefix.length()) : error;
    }

    public Optional<Attempt> currentAttempt() {
        return attempts.isEmpty() ? Optional.empty() : Optional.of(attempts.getLast());
    }

    /** Attempts that ended by the task's own doing (its retry policy counts these), the current one included. */
    public int ownAttempts() {
        return (int) attempts.stream().filter(a -> !a.lost()).count();
    }

    /** Attempts lost to workers that stopped answering. */
    public int lostAttempts() {
        return (int) attempts.stream().filter(Attempt::lost).count();
    }

    public Instant startDate() {
        return histories.getFirst().date();
    }

    public TaskRun transition(State next, Instant at) {
        if (state == next) {
            return this;
        }
        return new TaskRun(id, taskId, parentTaskRunId, value, iteration, next,
                Lists.append(histories, new StateHistory(next, at)), attempts, error);
    }

    public TaskRun withAttempts(List<Attempt> newAttempts) {
        return new TaskRun(id, taskId, parentTaskRunId, value, iteration, state, histories, newAttempts, error);
    }

    public TaskRun withError(String newError) {
        return new TaskRun(id, taskId, parentTaskRunId, value, iteration, state, histories, attempts, newError);
    }

    public TaskRun addAttempt(Attempt attempt) {
        return withAttempts(Lists.append(attempts, attempt));
    }

    /** A copy whose attempt {@code number} is changed by {@code change}. */
    public TaskRun updateAttempt(int number, UnaryOperator<Attempt> change) {
        return withAttempts(Lists.replace(attempts, a -> a.number() == number, change));
    }
}
