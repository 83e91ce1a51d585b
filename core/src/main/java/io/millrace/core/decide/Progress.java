package io.millrace.core.decide;

import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.TaskDef;
import java.util.List;
import java.util.Optional;

/**
 * Where a sequence of tasks stands: the next task to start, still waiting on a running one, or done
 * (and how). Disabled tasks are passed over; the first failure ends the sequence.
 */
record Progress(Optional<TaskDef> next, boolean waiting, boolean failed, boolean warning, String error) {

    static Progress of(List<TaskDef> tasks, Execution execution) {
        boolean warning = false;
        for (TaskDef task : tasks) {
            if (task.disabled()) {
                continue;
            }
            Optional<TaskRun> run = execution.taskRunOfTask(task.id());
            if (run.isEmpty()) {
                return new Progress(Optional.of(task), false, false, warning, null);
            }
            State state = run.get().state();
            if (!state.isTerminal()) {
                return new Progress(Optional.empty(), true, false, warning, null);
            }
            if (state.isFailure()) {
                String error = run.get().error();
                return new Progress(Optional.empty(), false, true, warning,
                        "Task '" + task.id() + "' ended " + state + (error == null ? "" : ": " + error));
            }
            warning |= state == State.WARNING;
        }
        return new Progress(Optional.empty(), false, false, warning, null);
    }
}
