package io.millrace.core.decide;

import io.millrace.core.command.ResumeExecution;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Inputs;
import io.millrace.core.flow.Pause;
import java.util.Map;

/**
 * Resumes a PAUSED execution: the PAUSED run the command names (or the first) goes on with the command's inputs as
 * its {@code onResume} outputs; an execution paused by a call, with no PAUSED run, runs again. A resume of an
 * execution or run that no longer waits is STALE; inputs that do not resolve are INVALID and change nothing.
 */
final class ResumeHandler implements CommandHandler<ResumeExecution> {
    @Override
    public Decision decide(ResumeExecution command, DecisionContext context) {
        return context.onRunning(advance -> {
            Step step = advance.step();
            Execution execution = step.execution();
            if (execution.state() != State.PAUSED) {
                step.reject(Rejection.Kind.STALE, "Expected a PAUSED execution to resume, but "
                        + command.executionId() + " is " + execution.state());
                return;
            }
            TaskRun run = command.taskRunId() == null
                    ? execution.taskRuns().stream().filter(r -> r.state() == State.PAUSED).findFirst().orElse(null)
                    : advance.runs().get(command.taskRunId());
            if (command.taskRunId() != null && (run == null || run.state() != State.PAUSED)) {
                step.reject(Rejection.Kind.STALE, "Expected task run " + command.taskRunId() + " to be PAUSED, but it is "
                        + (run == null ? "not a run of " + command.executionId() : run.state()));
                return;
            }
            if (run == null && !command.inputs().isEmpty()) {
                step.reject(Rejection.Kind.INVALID, "Expected no inputs to resume " + command.executionId()
                        + ", which was paused by a call, not by a Pause task, but got " + command.inputs().keySet());
                return;
            }
            if (run == null) {
                Pausing.goOn(advance);
                return;
            }
            if (!(advance.flow().task(run.taskId()).orElse(null) instanceof Pause pause)) {
                step.reject(Rejection.Kind.INVALID, "Expected the PAUSED run " + run.id() + " to be a Pause task's, but '"
                        + run.taskId() + "' is not a Pause task of the flow");
                return;
            }
            Map<String, Object> outputs;
            try {
                outputs = pause.resumeOutputs(command.inputs());
            } catch (Inputs.InvalidInputsException e) {
                step.reject(Rejection.Kind.INVALID, "Expected the inputs to resume '" + run.taskId() + "' with to match "
                        + "its onResume inputs, but: " + e.getMessage());
                return;
            }
            Pausing.resume(advance, run, pause, outputs);
        });
    }
}
