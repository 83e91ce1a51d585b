package io.millrace.core.expression;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * {@code fromJson(text)}, and Kestra's older name for it, {@code json(text)}: parses JSON text into maps (key order
 * kept), lists, strings, numbers, booleans or null. A null argument gives null; anything but a string, or text that
 * is not JSON, fails the render.
 */
final class FromJsonFunction implements Function {

    private static final String ARGUMENT = "json";

    private final String name;

    FromJsonFunction(String name) {
        this.name = name;
    }

    @Override
    public List<String> getArgumentNames() {
        return List.of(ARGUMENT);
    }

    @Override
    public Object execute(Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (!args.containsKey(ARGUMENT)) {
            throw new PebbleException(null, "Expected '" + name + "' to have an argument, but it has none", lineNumber, self.getName());
        }
        Object json = args.get(ARGUMENT);
        if (json == null) {
            return null;
        }
        if (!(json instanceof String text)) {
            throw new PebbleException(null, "Expected '" + name + "' to have a string argument, but it is a "
                    + json.getClass().getSimpleName(), lineNumber, self.getName());
        }
        try {
            return JsonPrintingWriter.JSON.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw new PebbleException(null, "Invalid JSON in '" + name + "': " + e.getOriginalMessage(), lineNumber, self.getName());
        }
    }
}
