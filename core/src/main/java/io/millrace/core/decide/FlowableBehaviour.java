package io.millrace.core.decide;

import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flowable;
import java.util.Map;

/**
 * How one flowable type behaves, as two pure functions: which children its main branch may run ({@link #plan}, from
 * which the executor picks the children that start next) and what its outcome is, given how its children ended
 * ({@link #outcome}). Errors and finally branches, concurrency and propagation are the executor's, the same for all.
 */
interface FlowableBehaviour<F extends Flowable> {

    /** Whether the flowable's running {@code run} waits, PAUSED, before any child starts (a Pause not yet resumed). */
    default boolean holds(F task, TaskRun run) {
        return false;
    }

    /** The children the main branch may run. Throws when the flowable cannot run (e.g. its values do not render). */
    Plan plan(F task, Scope scope) throws Scope.Failure;

    /** The flowable's state, given the state its children imply (FAILED when one failed, WARNING, or SUCCESS). */
    default State outcome(F task, State guessed) {
        return guessed;
    }

    /** The flowable's outputs once it ends. */
    default Map<String, Object> outputs(F task, Scope scope) throws Scope.Failure {
        return Map.of();
    }
}
