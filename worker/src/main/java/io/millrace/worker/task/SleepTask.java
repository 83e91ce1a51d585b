package io.millrace.worker.task;

import java.time.Duration;
import java.util.Map;

/** io.kestra.plugin.core.flow.Sleep: waits {@code duration} (ISO-8601, e.g. PT2S, rendered). No outputs. */
final class SleepTask implements RunnableTask {

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException, InterruptedException {
        Duration duration = new TaskProperties(invocation).duration("duration", null);
        Thread.sleep(duration); // interruptible: a cancelled or timed-out run ends here
        return TaskOutcome.success(Map.of());
    }
}
