package io.millrace.core.decide;

import io.millrace.core.command.SubflowEnded;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Subflow;
import java.util.LinkedHashMap;

/**
 * A Subflow run's child ended: the run ends with the child's id, state and outputs. With {@code transmitFailed} a
 * child that ended FAILED, KILLED or WARNING ends it so (then {@code allowFailure} and {@code allowWarning} apply, as
 * to any run), else SUCCESS; a notice with an error (the child could not start, its outputs did not render) fails it.
 * A notice for a run that moved on (killed, timed out, retried) is STALE.
 */
final class SubflowEndedHandler implements CommandHandler<SubflowEnded> {
    @Override
    public Decision decide(SubflowEnded notice, DecisionContext context) {
        return context.onRunning(advance -> {
            TaskRun run = advance.runs().get(notice.taskRunId());
            boolean current = run != null && run.state() == State.RUNNING
                    && run.currentAttempt().filter(a -> a.number() == notice.attempt() && !a.state().isTerminal()).isPresent();
            if (!current || !(advance.flow().task(run.taskId()).orElse(null) instanceof Subflow task)) {
                advance.step().reject(Rejection.Kind.STALE, "Expected task run " + notice.taskRunId() + " attempt "
                        + notice.attempt() + " to wait for subflow execution " + notice.childExecutionId()
                        + ", but it does not");
                return;
            }
            var outputs = new LinkedHashMap<String, Object>();
            outputs.put(Subflows.EXECUTION_ID, notice.childExecutionId());
            outputs.put("state", notice.state().name());
            if (notice.outputs() != null) {
                outputs.put("outputs", notice.outputs());
            }
            State state = notice.error() != null ? State.FAILED
                    : task.transmitFailed() && (notice.state().isFailure() || notice.state() == State.WARNING)
                    ? (notice.state() == State.KILLED ? State.FAILED : notice.state()) : State.SUCCESS;
            String error = notice.error() != null ? notice.error() : state == State.FAILED
                    ? "Subflow execution " + notice.childExecutionId() + " ended " + notice.state() : null;
            advance.life().end(run, task, state, outputs, error, null);
        });
    }
}
