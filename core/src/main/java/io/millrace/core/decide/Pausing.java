package io.millrace.core.decide;

import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunPaused;
import io.millrace.core.event.TaskRunResumed;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.Pause;
import java.util.Map;

/**
 * How an execution pauses and goes on, for every path that does it: a Pause run holding in the walk, the pause and
 * resume commands, and the RESUME timer. While an execution is PAUSED the runs it started go on, but the walk starts
 * nothing ({@link Advance#run}); when it goes on, every running flowable is looked at again.
 */
final class Pausing {
    private Pausing() {
    }

    /** A Pause run starts to wait: PAUSED, its execution too, with a timer for its delay or timeout if it has one. */
    static void hold(Advance advance, TaskRun run, Pause pause) {
        Step step = advance.step();
        step.emit(new TaskRunPaused(run.id(), advance.now()));
        pause(advance);
        if (pause.wakeAfter() != null) {
            step.effect(new Effect.ScheduleTimer(Timers.resume(step.executionId(), advance.runs().get(run.id()), pause)));
        }
    }

    /** The execution holds: PAUSED, unless it is already. */
    static void pause(Advance advance) {
        if (advance.step().execution().state() == State.RUNNING) {
            advance.step().emit(new ExecutionStateChanged(State.PAUSED, advance.now()));
        }
    }

    /** A PAUSED run goes on with {@code outputs}; its execution too, once no run waits. */
    static void resume(Advance advance, TaskRun run, Pause pause, Map<String, Object> outputs) {
        Step step = advance.step();
        if (pause.wakeAfter() != null) {
            step.effect(new Effect.CancelTimer(Timers.resume(step.executionId(), run, pause)));
        }
        step.emit(new TaskRunResumed(run.id(), outputs, advance.now()));
        goOn(advance);
    }

    /** A PAUSED execution runs again, unless one of its runs still waits; every running flowable is looked at again. */
    static void goOn(Advance advance) {
        if (advance.step().execution().state() != State.PAUSED
                || advance.step().execution().taskRuns().stream().anyMatch(r -> r.state() == State.PAUSED)) {
            return;
        }
        advance.step().emit(new ExecutionStateChanged(State.RUNNING, advance.now()));
        advance.touch(null);
        for (TaskRun run : advance.step().execution().taskRuns()) {
            if (run.state() == State.RUNNING && advance.flow().task(run.taskId()).orElse(null) instanceof Flowable) {
                advance.touch(run.id());
            }
        }
    }
}
