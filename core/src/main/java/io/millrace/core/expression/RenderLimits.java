package io.millrace.core.expression;

import java.time.Duration;

/**
 * What one render may spend and build, so that no template (flows and webhook inputs are user input) can hold the
 * thread that renders it (the executor's stream thread for runIf, If, Switch, ForEach and flow outputs; a worker's
 * for task properties; the gateway's for webhook inputs) or fill its memory. A render that goes past a limit fails
 * with an {@link ExpressionException} whose message names the limit's setting, e.g. "... exceeds the render limit
 * expression-max-steps (1000000)"; the task run, execution or request that rendered it fails, and nothing else.
 *
 * <p>A <em>step</em> is one unit of evaluation work: one {@code for} iteration, one macro call, one write to the
 * output, one filter or function call, one element a range produces or a filter walks, one jq builtin call or value a
 * jq program emits, and one step per 1,024 characters a filter or regular expression reads.
 * Steps make the bound the same on a fast and a slow machine; the time limit catches what steps do not count.
 *
 * <p>The defaults are far above what flows need (every template of the Kestra conformance corpus renders in under
 * a hundred steps and microseconds; a ForEach of {@code 10,000} values is a limit of its own) and far below what
 * holds a thread: a million steps take a fraction of a second.
 *
 * @param maxSteps steps one render may take ({@value #MAX_STEPS}); default one million
 * @param maxTime wall time one render may take, read every 1,024 steps and by jq's
 *     regular expressions ({@value #MAX_TIME}); default 100 ms: the executor's stream thread decides for
 *     every execution of its partitions, and every other execution there waits while one render runs. A real template
 *     renders in microseconds; a catastrophic regular expression, which steps do not stop, runs until this limit, and
 *     with one second it held the others' p99 at a second (the poison suite, {@code bench --poison})
 * @param maxStringChars characters of one string a render builds: by {@code ~}, {@code +}, a filter, a function, a
 *     {@code set}, a macro's argument or output ({@value #MAX_STRING_CHARS}); default ten million, as much as a render
 *     may print, so whatever a render may print it may also build once
 * @param maxCollectionSize elements of one list or map a render builds: a range, a filter's or function's result,
 *     a {@code set}, a macro's argument, {@code +} on lists ({@value #MAX_COLLECTION_SIZE}); default 100,000
 * @param maxRenderedChars characters one render may print ({@value #MAX_RENDERED_CHARS}); default ten million
 * @param maxJqResults values one {@code jq(...)} call may emit ({@value #MAX_JQ_RESULTS}); default 100,000
 * @param maxTimeSetting the setting {@code maxTime} came from, named when it is reached: {@value #MAX_TIME}, or the
 *     executor's own, {@code executor-expression-max-time}
 */
public record RenderLimits(long maxSteps, Duration maxTime, int maxStringChars, int maxCollectionSize,
        int maxRenderedChars, int maxJqResults, String maxTimeSetting) {

    public static final String MAX_STEPS = "expression-max-steps";
    public static final String MAX_TIME = "expression-max-time";
    public static final String MAX_STRING_CHARS = "expression-max-string-chars";
    public static final String MAX_COLLECTION_SIZE = "expression-max-collection-size";
    public static final String MAX_RENDERED_CHARS = "expression-max-rendered-chars";
    public static final String MAX_JQ_RESULTS = "expression-max-jq-results";

    public static final RenderLimits DEFAULTS = new RenderLimits(1_000_000, Duration.ofMillis(100), 10_000_000,
            100_000, 10_000_000, 100_000);

    public RenderLimits {
        requirePositive(MAX_STEPS, maxSteps);
        if (maxTime == null || maxTime.isNegative() || maxTime.isZero()) {
            throw new IllegalArgumentException("Expected " + maxTimeSetting + " to be a positive duration, but it is "
                    + maxTime);
        }
        requirePositive(MAX_STRING_CHARS, maxStringChars);
        requirePositive(MAX_COLLECTION_SIZE, maxCollectionSize);
        requirePositive(MAX_RENDERED_CHARS, maxRenderedChars);
        requirePositive(MAX_JQ_RESULTS, maxJqResults);
    }

    /** Limits whose time budget is {@value #MAX_TIME}'s. */
    public RenderLimits(long maxSteps, Duration maxTime, int maxStringChars, int maxCollectionSize,
            int maxRenderedChars, int maxJqResults) {
        this(maxSteps, maxTime, maxStringChars, maxCollectionSize, maxRenderedChars, maxJqResults, MAX_TIME);
    }

    /** These limits with another step budget (tests use a small one). */
    public RenderLimits withMaxSteps(long steps) {
        return new RenderLimits(steps, maxTime, maxStringChars, maxCollectionSize, maxRenderedChars, maxJqResults,
                maxTimeSetting);
    }

    /** These limits with another time budget. */
    public RenderLimits withMaxTime(Duration time) {
        return withMaxTime(time, maxTimeSetting);
    }

    /** These limits with another time budget, from {@code setting} (named when it is reached). */
    public RenderLimits withMaxTime(Duration time, String setting) {
        return new RenderLimits(maxSteps, time, maxStringChars, maxCollectionSize, maxRenderedChars, maxJqResults,
                setting);
    }

    /** The message of a render that went past a limit: "{what} exceeds the render limit {setting} ({value})". */
    static String exceeded(String setting, Object value, String what) {
        return what + " exceeds the render limit " + setting + " (" + value + ")";
    }

    private static void requirePositive(String setting, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException("Expected " + setting + " to be positive, but it is " + value);
        }
    }
}
