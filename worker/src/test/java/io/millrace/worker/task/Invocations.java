package io.millrace.worker.task;

import io.millrace.core.expression.Expressions;

import java.util.Map;

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
}
