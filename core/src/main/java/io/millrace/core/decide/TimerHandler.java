package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;

/**
 * Decides what one kind of timer does when it fires ({@link TimerFiredHandler} registers one for each kind). A timer
 * that fires after what it guarded has moved on (a cancel lost in a crash, a kill) changes nothing.
 */
@FunctionalInterface
interface TimerHandler {
    Decision fire(Timer timer, DecisionContext context);

    /** The run a timer guards, while it is still {@code state} at the timer's attempt; else null (outlived). */
    static TaskRun guardedRun(Timer timer, Advance advance, State state) {
        TaskRun run = advance.runs().get(timer.taskRunId());
        return run != null && run.state() == state
                && run.currentAttempt().filter(a -> a.number() == timer.attempt()).isPresent() ? run : null;
    }
}
