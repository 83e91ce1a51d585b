package io.millrace.core.decide;

import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Pause;

/**
 * Pause: holds its run PAUSED when it starts (once: a run that paused before goes on), then runs its nested tasks in
 * order, if any. Its outputs are what it was resumed with ({@link Pausing}).
 */
final class PauseBehaviour implements FlowableBehaviour<Pause> {
    @Override
    public boolean holds(Pause task, TaskRun run) {
        return run.histories().stream().noneMatch(h -> h.state() == State.PAUSED);
    }

    @Override
    public Plan plan(Pause task, Scope scope) {
        return Plan.sequence(task.tasks());
    }
}
