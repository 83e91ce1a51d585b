package io.millrace.worker;

import io.millrace.worker.task.RunnableTask;
import io.millrace.worker.task.TaskInvocation;
import io.millrace.worker.task.TaskOutcome;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test's task type that computes until released, ignoring interruption, as a JSONata loop that never ends or a
 * careless task would: it never blocks, so on a virtual thread it would keep its carrier.
 */
final class SpinTask implements RunnableTask {
    static final String TYPE = "test.Spin";

    private final AtomicInteger spinning = new AtomicInteger();
    private volatile boolean released;

    @Override
    public TaskOutcome run(TaskInvocation invocation) {
        spinning.incrementAndGet();
        try {
            long rounds = 0;
            while (!released) {
                rounds++;
            }
            return TaskOutcome.success(Map.of("rounds", rounds));
        } finally {
            spinning.decrementAndGet();
        }
    }

    /** How many runs spin now. */
    int spinning() {
        return spinning.get();
    }

    /** Lets every run end (so a test leaves no thread spinning behind). */
    void release() {
        released = true;
    }
}
