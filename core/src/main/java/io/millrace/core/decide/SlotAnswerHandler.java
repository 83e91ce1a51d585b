package io.millrace.core.decide;

import io.millrace.core.command.SlotAnswer;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import java.util.List;
import java.util.Optional;

/**
 * The answer of its flow's concurrency slots to an execution that waits for a place (CREATED, QUEUED, or RESTARTED):
 * GRANTED, it runs (a restarted one goes on from its failed runs); QUEUED, it shows it; CANCELLED or FAILED, it ends so
 * without running. A place granted to an execution that has ended meanwhile (killed while it waited) is given back.
 */
final class SlotAnswerHandler implements CommandHandler<SlotAnswer> {
    @Override
    public Decision decide(SlotAnswer answer, DecisionContext context) {
        Execution execution = context.execution().orElse(null);
        if (execution == null || execution.state().isTerminal()) {
            var effects = answer.answer() == SlotAnswer.Answer.GRANTED
                    ? List.of(Places.release(answer.flowKey(), answer.executionId(), context.now()))
                    : List.<Effect>of();
            return new Decision(List.of(), effects, Optional.of(new Rejection(Rejection.Kind.STALE, "Expected execution "
                    + answer.executionId() + " to wait for a place, but it " + (execution == null ? "does not exist"
                    : "is " + execution.state()))));
        }
        if (!Places.waits(execution.state())) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected execution " + answer.executionId()
                    + " to wait for a place, but it is " + execution.state() + " (an answer sent twice)");
        }
        return context.onRunning(advance -> {
            switch (answer.answer()) {
                case GRANTED -> {
                    boolean restarted = !execution.taskRuns().isEmpty();
                    advance.step().emit(new ExecutionStateChanged(State.RUNNING, advance.now()));
                    if (restarted) {
                        RestartHandler.reopen(advance, advance.flow());
                    }
                    advance.touch(null);
                }
                case QUEUED -> {
                    if (execution.state() != State.QUEUED) {
                        advance.step().emit(new ExecutionStateChanged(State.QUEUED, advance.now()));
                    }
                }
                case CANCELLED -> advance.endExecution(new ExecutionCompleted(State.CANCELLED, null, answer.reason(),
                        advance.now()));
                case FAILED -> advance.endExecution(new ExecutionCompleted(State.FAILED, null, answer.reason(),
                        advance.now()));
            }
        });
    }
}
