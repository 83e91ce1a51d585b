package io.millrace.core.expression;

/** A render went past one of the {@link RenderLimits}; {@link Expressions} turns it into an ExpressionException. */
final class RenderLimitException extends RuntimeException {

    RenderLimitException(String message) {
        super(message, null, false, false);
    }
}
