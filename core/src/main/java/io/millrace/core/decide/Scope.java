package io.millrace.core.decide;

import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.ExpressionException;

/** What a flowable's behaviour sees of its run: the run itself, and its expressions rendered in its context. */
interface Scope {

    TaskRun run();

    Object renderDeep(Object value) throws Failure;

    default String render(String template) throws Failure {
        return (String) renderDeep(template);
    }

    /** The flowable cannot go on: it ends FAILED with this message. */
    final class Failure extends Exception {
        Failure(String message) {
            super(message, null, false, false);
        }

        static Failure of(ExpressionException e) {
            return new Failure(e.getMessage());
        }
    }
}
