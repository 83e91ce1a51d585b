package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.extension.core.JoinFilter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * Pebble's {@code join(separator)}, measured before it is built: a long separator between many elements, or one big
 * string many elements share, multiplies into a text far bigger than its parts.
 */
final class BoundedJoinFilter implements Filter {

    static final String NAME = "join";

    private final JoinFilter pebble = new JoinFilter();

    @Override
    public List<String> getArgumentNames() {
        return pebble.getArgumentNames();
    }

    @Override
    public Object apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        long elements = Sizes.elements(input);
        if (elements > 0) {
            RenderBudget budget = RenderBudget.current();
            long limit = budget.limits().maxStringChars();
            long separators = args.get("separator") instanceof String separator ? (elements - 1) * separator.length() : 0;
            budget.checkChars(separators + Sizes.printedChars(input, limit - separators), "The result of the filter '" + NAME + "'");
        }
        return pebble.apply(input, args, self, context, lineNumber);
    }
}
