package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.Formatter;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pebble's {@code format(args...)}, as {@code String.format}, into a {@link CappedText}. A width or precision past
 * {@code expression-max-string-chars} is refused before formatting: Java builds a padded number whole before it
 * appends it.
 */
final class BoundedFormatFilter implements Filter {

    static final String NAME = "format";
    private static final Pattern SIZES = Pattern.compile("%(?:\\d+\\$)?[-#+ 0,(<]*(\\d+)?(?:\\.(\\d+))?");

    @Override
    public List<String> getArgumentNames() {
        return List.of();
    }

    @Override
    public Object apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (input == null) {
            return null;
        }
        String format = input.toString();
        checkSizes(format);
        Object[] values = new Object[args.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = args.get(String.valueOf(i));
        }
        CappedText text = new CappedText("The result of the filter '" + NAME + "'");
        try (Formatter formatter = new Formatter(text)) {
            formatter.format(format, values);
        }
        return text.toString();
    }

    private static void checkSizes(String format) {
        RenderBudget budget = RenderBudget.current();
        Matcher specifier = SIZES.matcher(format);
        while (specifier.find()) {
            for (int group = 1; group <= 2; group++) {
                String digits = specifier.group(group);
                if (digits != null) {
                    budget.checkChars(digits.length() > 10 ? Long.MAX_VALUE : Long.parseLong(digits),
                            "A width or precision in the filter '" + NAME + "'");
                }
            }
        }
    }
}
