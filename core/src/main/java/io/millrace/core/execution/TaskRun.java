package io.millrace.core.execution;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One run of one task inside an execution. {@code parentTaskRunId} and {@code value} are set for
 * runs inside flowable tasks (a ForEach iteration's value); both are null for top-level tasks.
 * {@code error} says why an ended run ended as it did (a worker's failure, a timeout, lost workers); null otherwise.
 * Outputs are not here: they live in the outputs store, so a state update never copies them.
 */
public record TaskRun(
        String id,
        String taskId,
        String parentTaskRunId,
        String value,
        State state,
        List<StateHistory> histories,
        List<Attempt> attempts,
        String error) {

    public TaskRun {
        histories = List.copyOf(histories);
        attempts = List.copyOf(attempts);
    }

    public static TaskRun created(String id, String taskId, String parentTaskRunId, String value, Instant at) {
        return new TaskRun(id, taskId, parentTaskRunId, value, State.CREATED,
                List.of(new StateHistory(State.CREATED, at)), List.of(), null);
    }

    public Optional<Attempt> currentAttempt() {
        return attempts.isEmpty() ? Optional.empty() : Optional.of(attempts.getLast());
    }

    public TaskRun transition(State next, Instant at) {
        if (state == next) {
            return this;
        }
        return new TaskRun(id, taskId, parentTaskRunId, value, next,
                Lists.append(histories, new StateHistory(next, at)), attempts, error);
    }

    public TaskRun withAttempts(List<Attempt> newAttempts) {
        return new TaskRun(id, taskId, parentTaskRunId, value, state, histories, newAttempts, error);
    }

    public TaskRun withError(String newError) {
        return new TaskRun(id, taskId, parentTaskRunId, value, state, histories, attempts, newError);
    }

    public TaskRun addAttempt(Attempt attempt) {
        return withAttempts(Lists.append(attempts, attempt));
    }

    /** A copy whose attempt {@code number} is changed by {@code change}. */
    public TaskRun updateAttempt(int number, java.util.function.UnaryOperator<Attempt> change) {
        return withAttempts(Lists.replace(attempts, a -> a.number() == number, change));
    }
}
