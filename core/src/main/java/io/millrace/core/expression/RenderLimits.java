package io.millrace.core.expression;

/**
 * What one render may build, so that no template (flows are user input) can hang or exhaust the executor. A render
 * that goes past a limit fails with an {@link ExpressionException} naming the limit.
 */
final class RenderLimits {

    /** Elements one {@code range(...)} (or {@code a..b}, or jq's {@code range}) may produce. */
    static final int MAX_RANGE_ELEMENTS = 100_000;
    /**
     * Elements all the {@code range(...)} calls of one render may produce together: nested loops over ranges
     * ({@code {% for i in 0..99999 %}{% for j in 0..99999 %}}) would otherwise run for hours without printing.
     */
    static final int MAX_RANGE_ELEMENTS_PER_RENDER = 1_000_000;
    /** Values one {@code jq(...)} call may emit ({@code repeat(1)} never stops on its own). */
    static final int MAX_JQ_RESULTS = 100_000;
    /** Characters one render may print. */
    static final int MAX_RENDERED_CHARS = 10_000_000;

    private RenderLimits() {
    }

    static String exceeded(String limit, long value, String what) {
        return what + " exceeds the render limit " + limit + " (" + value + ")";
    }
}
