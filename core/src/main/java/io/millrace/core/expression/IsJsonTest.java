package io.millrace.core.expression;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Test;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * {@code text is json}: whether a JSON parser reads a value from the start of the string, as Kestra decides it. So
 * objects, arrays, numbers, {@code true}/{@code false}/{@code null} and quoted strings are JSON; bare words are not;
 * text after the first value is not looked at ({@code "{} x"} is JSON); an empty or blank string is JSON too
 * (the parser reads "no value" without an error). Anything but a string fails the render, as it does in Kestra.
 */
final class IsJsonTest implements Test {

    @Override
    public List<String> getArgumentNames() {
        return null;
    }

    @Override
    public boolean apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (!(input instanceof String text)) {
            throw new PebbleException(null, "Expected the 'json' test to be given a string, but it was given "
                    + (input == null ? "null" : "a " + input.getClass().getSimpleName()), lineNumber, self.getName());
        }
        try {
            JsonPrintingWriter.JSON.readTree(text);
            return true;
        } catch (JsonProcessingException notJson) {
            return false;
        }
    }
}
