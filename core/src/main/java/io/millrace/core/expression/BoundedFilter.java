package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * A filter that spends the render's budget: a step, plus, unless it reads no more than an end of its input
 * ({@code length}, {@code first}...), the work of walking its input once (what sort, join or upper cost); and whose
 * result may be no bigger than a render may build.
 */
final class BoundedFilter implements Filter {

    private final String name;
    private final Filter filter;
    private final boolean walksInput;

    BoundedFilter(String name, Filter filter, boolean walksInput) {
        this.name = name;
        this.filter = filter;
        this.walksInput = walksInput;
    }

    @Override
    public List<String> getArgumentNames() {
        return filter.getArgumentNames();
    }

    @Override
    public Object apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        RenderBudget.current().spend(walksInput ? 1 + Sizes.work(input) : 1);
        return Sizes.checkBuilt(filter.apply(input, args, self, context, lineNumber), "The result of the filter '" + name + "'");
    }
}
