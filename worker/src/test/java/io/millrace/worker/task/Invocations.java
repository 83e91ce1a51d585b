package io.millrace.worker.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.expression.Expressions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/** Builds invocations for tests, sharing one Expressions as the worker does. */
final class Invocations {

    static final Expressions EXPRESSIONS = new Expressions();

    private Invocations() {
    }

    static TaskInvocation of(String taskId, String type, Map<String, Object> properties, Map<String, Object> variables,
                             TaskLogger logger) {
        return new TaskInvocation(taskId, type, properties, variables, EXPRESSIONS, logger);
    }

    static TaskInvocation of(String taskId, String type, Map<String, Object> properties, Map<String, Object> variables) {
        return of(taskId, type, properties, variables, new RecordingLogger());
    }

    /** Runs through the registry, as the worker does. */
    static TaskOutcome execute(TaskInvocation invocation) throws InterruptedException {
        return TaskRegistry.standard().find(invocation.type()).orElseThrow().execute(invocation);
    }

    /**
     * Runs the invocation on a virtual thread, interrupts it after {@code runFor}, checks that it stopped within
     * 5 s, and answers what it threw.
     */
    static Throwable interruptAfter(TaskInvocation invocation, Duration runFor) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread runner = Thread.ofVirtual().start(() -> {
            try {
                execute(invocation);
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        Thread.sleep(runFor);
        Instant interruptedAt = Instant.now();
        runner.interrupt();
        runner.join(Duration.ofSeconds(10));
        assertThat(runner.isAlive()).isFalse();
        assertThat(Duration.between(interruptedAt, Instant.now())).isLessThan(Duration.ofSeconds(5));
        return thrown.get();
    }
}
