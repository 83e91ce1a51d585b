package io.millrace.core.expression;

/** A render went past one of the {@link RenderLimits}; {@link Expressions} turns it into an ExpressionException. */
final class RenderLimitException extends RuntimeException {

    RenderLimitException(String message) {
        super(message, null, false, false);
    }

    /**
     * The RenderLimitException that caused a failure, or null: Pebble and Jackson wrap what a filter or a writer
     * throws in exceptions of their own.
     */
    static RenderLimitException causing(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RenderLimitException limit) {
                return limit;
            }
        }
        return null;
    }
}
