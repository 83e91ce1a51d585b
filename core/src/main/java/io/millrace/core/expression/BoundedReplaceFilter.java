package io.millrace.core.expression;

import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * Pebble's {@code replace({'from': 'to', ...})}, each pair replaced in turn, literally. Each result is measured before
 * it is built: replacing every character of a long text by a long text would otherwise multiply the two sizes.
 */
final class BoundedReplaceFilter implements Filter {

    static final String NAME = "replace";
    private static final String PAIRS = "replace_pairs";

    @Override
    public List<String> getArgumentNames() {
        return List.of(PAIRS);
    }

    @Override
    public Object apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (input == null) {
            return null;
        }
        if (!(args.get(PAIRS) instanceof Map<?, ?> pairs)) {
            throw new PebbleException(null, "The argument '" + PAIRS + "' is required.", lineNumber, self.getName());
        }
        String text = input.toString();
        for (Map.Entry<?, ?> pair : pairs.entrySet()) {
            text = replace(text, pair.getKey().toString(), pair.getValue().toString());
        }
        return text;
    }

    private static String replace(String text, String from, String to) {
        RenderBudget budget = RenderBudget.current();
        budget.spend(1 + text.length() / Sizes.CHARS_PER_STEP);
        long length = text.length() + occurrences(text, from) * (to.length() - (long) from.length());
        budget.checkChars(length, "The result of the filter '" + NAME + "'");
        return text.replace(from, to);
    }

    /** Where String.replace puts the replacement: each occurrence, or around every character for an empty target. */
    private static long occurrences(String text, String target) {
        if (target.isEmpty()) {
            return text.length() + 1L;
        }
        long count = 0;
        for (int at = text.indexOf(target); at >= 0; at = text.indexOf(target, at + target.length())) {
            count++;
        }
        return count;
    }
}
