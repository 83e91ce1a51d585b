package io.millrace.core.decide;

import io.millrace.core.command.Command;
import io.millrace.core.command.Timer;
import io.millrace.core.flow.WorkerTask;
import java.time.Instant;

/** What the executor must carry out after a decision's events are stored. */
public sealed interface Effect {

    /** Send one attempt of a task run to the workers of the task's group. */
    record DispatchTask(String executionId, String taskRunId, int attempt, WorkerTask task) implements Effect {
    }

    /** Remember a wake-up; it comes back as a TimerFired command when due. */
    record ScheduleTimer(Timer timer) implements Effect {
    }

    /** Forget a wake-up that is no longer needed; one that already fired, or was never stored, is no matter. */
    record CancelTimer(Timer timer) implements Effect {
    }

    /** Stop the attempts of a killed execution that workers run (every worker hears it). */
    record StopTasks(String executionId, Instant requestedAt) implements Effect {
    }

    /** Send a command to another execution (a subflow's child, a child's parent), on the commands topic. */
    record SendCommand(Command command) implements Effect {
    }

    /** Publish the execution's latest state (with outputs) to the snapshots topic. */
    record EmitSnapshot(String executionId) implements Effect {
    }
}
