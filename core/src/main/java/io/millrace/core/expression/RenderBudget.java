package io.millrace.core.expression;

/**
 * What the render running on this thread may still spend on ranges. Pebble evaluates a template on the thread that
 * renders it (no executor is configured), and one thread renders one template at a time, so a thread-local budget
 * reset by {@link #start()} belongs to exactly one render; it costs no allocation after a thread's first render.
 */
final class RenderBudget {

    private static final ThreadLocal<RenderBudget> CURRENT = ThreadLocal.withInitial(RenderBudget::new);

    private long rangeElementsLeft = RenderLimits.MAX_RANGE_ELEMENTS_PER_RENDER;

    private RenderBudget() {
    }

    static void start() {
        CURRENT.get().rangeElementsLeft = RenderLimits.MAX_RANGE_ELEMENTS_PER_RENDER;
    }

    static void spendRangeElements(long elements) {
        RenderBudget budget = CURRENT.get();
        budget.rangeElementsLeft -= elements;
        if (budget.rangeElementsLeft < 0) {
            throw new RenderLimitException(RenderLimits.exceeded("MAX_RANGE_ELEMENTS_PER_RENDER",
                    RenderLimits.MAX_RANGE_ELEMENTS_PER_RENDER, "The elements of this render's ranges"));
        }
    }
}
