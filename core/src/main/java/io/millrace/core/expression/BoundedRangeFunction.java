package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.extension.core.RangeFunction;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pebble's {@code range(start, end, increment)} (also behind {@code start..end}), bounded: a numeric range may have
 * at most {@code expression-max-collection-size} elements, and spends a step of the render's budget for each, so
 * nested loops over ranges run out of steps, not for hours. Numeric ranges are built here (the same Long elements,
 * end included, as Pebble's, without its overflow near Long.MAX_VALUE); character ranges and argument errors are
 * Pebble's own (a character range has at most 65,536 elements).
 */
final class BoundedRangeFunction implements Function {

    static final String NAME = RangeFunction.FUNCTION_NAME;

    private final RangeFunction pebble = new RangeFunction();

    @Override
    public List<String> getArgumentNames() {
        return pebble.getArgumentNames();
    }

    @Override
    public Object execute(Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        Object increment = args.get("increment") == null ? 1L : args.get("increment");
        if (!(args.get("start") instanceof Number start && args.get("end") instanceof Number end
                && increment instanceof Number step && step.longValue() != 0)) {
            return pebble.execute(args, self, context, lineNumber);
        }
        long from = start.longValue();
        long by = step.longValue();
        long size = size(from, end.longValue(), by);
        RenderBudget budget = RenderBudget.current();
        budget.checkElements(size, "A range");
        budget.spend(size);
        List<Long> elements = new ArrayList<>((int) size);
        for (long i = 0; i < size; i++) {
            elements.add(from + i * by);
        }
        return elements;
    }

    /** The number of elements from..to (to included) by a non-zero step, saturated at Long.MAX_VALUE. */
    static long size(long from, long to, long step) {
        long span;
        try {
            span = Math.subtractExact(to, from);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
        if (span != 0 && (span < 0) != (step < 0)) {
            return 0;
        }
        long steps = span / step;
        return steps < 0 || steps == Long.MAX_VALUE ? Long.MAX_VALUE : steps + 1;
    }
}
