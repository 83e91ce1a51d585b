package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Inputs;
import io.millrace.core.flow.Pause;
import java.util.Map;

/**
 * A PAUSED run's wait is over: with a {@code delay} it resumes (its {@code onResume} inputs at their defaults); with
 * only a {@code timeout} it fails, as Kestra's Pause does. A run resumed or killed first changes nothing.
 */
final class ResumeDueHandler implements TimerHandler {
    @Override
    public Decision fire(Timer timer, DecisionContext context) {
        return context.onRunning(advance -> {
            TaskRun run = TimerHandler.guardedRun(timer, advance, State.PAUSED);
            if (run == null || !(advance.flow().task(run.taskId()).orElse(null) instanceof Pause pause)) {
                return; // outlived: resumed, killed or failed first
            }
            if (pause.delay() != null) {
                Pausing.resume(advance, run, pause, defaults(pause));
                return;
            }
            advance.life().end(run, pause, State.FAILED, Map.of(), "Paused longer than its timeout of "
                    + pause.timeout() + " without being resumed", null);
            Pausing.goOn(advance);
        });
    }

    /** The outputs of a Pause resumed by its delay: its onResume inputs' defaults, or none when one is required. */
    private static Map<String, Object> defaults(Pause pause) {
        try {
            return pause.resumeOutputs(Map.of());
        } catch (Inputs.InvalidInputsException e) {
            return Map.of("onResume", Map.of());
        }
    }
}
