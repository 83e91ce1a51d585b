package io.millrace.core.expression;

import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * {@code value | toJson}, and Kestra's older name for it, {@code value | json}: the value as JSON text, printed as
 * {@code {{ value }}} prints maps and lists (so a string gets its quotes, a date its ISO-8601 form); null gives
 * {@code null}. The result is a string, so {@code {{ map | toJson }}} and {@code {{ map }}} render alike.
 */
final class ToJsonFilter implements Filter {

    @Override
    public List<String> getArgumentNames() {
        return null;
    }

    @Override
    public Object apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (input == null) {
            return "null";
        }
        try {
            CappedText json = new CappedText("The result of the filter 'toJson'");
            JsonPrintingWriter.writeJson(input, json);
            return json.toString();
        } catch (UncheckedIOException e) {
            throw new PebbleException(e, "Unable to write a " + input.getClass().getSimpleName() + " as JSON", lineNumber, self.getName());
        }
    }
}
