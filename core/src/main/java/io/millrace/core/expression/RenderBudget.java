package io.millrace.core.expression;

import java.time.Duration;

/**
 * What the render running on this thread may still spend: steps and time, with the {@link RenderLimits} it checks
 * sizes against. Pebble evaluates a template on the thread that renders it (no executor is configured), and one
 * thread renders one template at a time, so a thread-local budget reset by {@link #start(RenderLimits)} belongs to
 * exactly one render; it costs no allocation after a thread's first render.
 *
 * <p>Spending is a subtraction; the clock is read once every {@value #STEPS_PER_CLOCK_READ} steps (reading it costs
 * about as much as a few steps). Going past a limit throws a {@link RenderLimitException}, and keeps throwing it at
 * every later spend of the same render: code that catches exceptions (Pebble's {@code ??}, jq's {@code try}) cannot
 * keep a render going once its budget is spent.
 */
final class RenderBudget {

    static final int STEPS_PER_CLOCK_READ = 1_024;

    private static final ThreadLocal<RenderBudget> CURRENT = ThreadLocal.withInitial(RenderBudget::new);

    private RenderLimits limits = RenderLimits.DEFAULTS;
    private long stepsLeft;
    private long stepsUntilClockRead;
    private long deadline;
    private String exceeded;

    private RenderBudget() {
        reset(RenderLimits.DEFAULTS);
    }

    /** Gives this thread's next render a fresh budget under these limits. */
    static RenderBudget start(RenderLimits limits) {
        RenderBudget budget = CURRENT.get();
        budget.reset(limits);
        return budget;
    }

    /** The budget of the render running on this thread. */
    static RenderBudget current() {
        return CURRENT.get();
    }

    RenderLimits limits() {
        return limits;
    }

    /** Spends steps; throws when the render has taken more steps or time than its limits allow. */
    void spend(long steps) {
        if (exceeded != null) {
            throw new RenderLimitException(exceeded);
        }
        stepsLeft -= steps;
        stepsUntilClockRead -= steps;
        if (stepsLeft < 0) {
            fail(RenderLimits.exceeded(RenderLimits.MAX_STEPS, limits.maxSteps(), "The work of this render"));
        }
        if (stepsUntilClockRead <= 0) {
            stepsUntilClockRead = STEPS_PER_CLOCK_READ;
            if (nanosLeft() < 0) {
                fail(RenderLimits.exceeded(limits.maxTimeSetting(), limits.maxTime(), "The time this render took"));
            }
        }
    }

    /** Nanoseconds left before the render's deadline; negative once it has passed. */
    long nanosLeft() {
        return deadline - System.nanoTime();
    }

    /**
     * Fails the render when a string it builds would have more characters than {@code expression-max-string-chars}.
     * The count may be an estimate that stopped just past the limit, so the message names the string, not its size.
     */
    void checkChars(long chars, String what) {
        if (chars > limits.maxStringChars()) {
            fail(RenderLimits.exceeded(RenderLimits.MAX_STRING_CHARS, limits.maxStringChars(), what));
        }
    }

    /** Fails the render when a list or map it builds would have more elements than {@code expression-max-collection-size}. */
    void checkElements(long elements, String what) {
        if (elements > limits.maxCollectionSize()) {
            fail(RenderLimits.exceeded(RenderLimits.MAX_COLLECTION_SIZE, limits.maxCollectionSize(),
                    what + " (" + elements + " elements)"));
        }
    }

    /** Throws, and remembers the message for every later spend of this render. */
    void fail(String message) {
        exceeded = message;
        throw new RenderLimitException(message);
    }

    private void reset(RenderLimits limits) {
        this.limits = limits;
        this.stepsLeft = limits.maxSteps();
        this.stepsUntilClockRead = STEPS_PER_CLOCK_READ;
        this.deadline = System.nanoTime() + nanos(limits.maxTime());
        this.exceeded = null;
    }

    /** A duration in nanoseconds, at most Long.MAX_VALUE / 2 (292 years), so that a deadline does not overflow. */
    private static long nanos(Duration time) {
        try {
            return Math.min(time.toNanos(), Long.MAX_VALUE / 2);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE / 2;
        }
    }
}
