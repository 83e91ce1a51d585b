package io.millrace.core.expression;

import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Pebble's {@code split(delimiter, limit)}: the delimiter is a regular expression, as in {@code String.split}, and
 * the same parts come back; here the expression runs over a {@link BudgetedText}, so it cannot backtrack for hours.
 */
final class BoundedSplitFilter implements Filter {

    static final String NAME = "split";
    private static final String DELIMITER = "delimiter";
    private static final String LIMIT = "limit";

    @Override
    public List<String> getArgumentNames() {
        return List.of(DELIMITER, LIMIT);
    }

    @Override
    public Object apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (input == null) {
            return null;
        }
        if (!(args.get(DELIMITER) instanceof String delimiter)) {
            throw new PebbleException(null, "missing delimiter parameter in split filter", lineNumber, self.getName());
        }
        int limit = args.get(LIMIT) instanceof Number number ? number.intValue() : 0;
        try {
            return Pattern.compile(delimiter).split(new BudgetedText(input.toString()), limit);
        } catch (PatternSyntaxException e) {
            throw new PebbleException(e, "Invalid delimiter in split filter: " + e.getDescription(), lineNumber, self.getName());
        }
    }
}
