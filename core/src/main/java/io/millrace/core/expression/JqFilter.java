package io.millrace.core.expression;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.core.cache.LruCache;
import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;
import net.thisptr.jackson.jq.BuiltinFunctionLoader;
import net.thisptr.jackson.jq.Function;
import net.thisptr.jackson.jq.JsonQuery;
import net.thisptr.jackson.jq.Scope;
import net.thisptr.jackson.jq.Versions;
import net.thisptr.jackson.jq.exception.JsonQueryException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code input | jq(expression)}, as in Kestra: runs a jq program (jq 1.6 semantics) over the input and returns the
 * list of every value it emits, never unwrapped ({@code jq('.key')} gives {@code ["my-key"]}; add {@code | first}
 * for the value). A string input is parsed as JSON first (text that is not JSON fails the render); maps, lists and
 * other values are taken as they are; null gives null. Emitted strings, numbers, booleans and null become Java
 * values, objects and arrays become maps and lists. Each program is compiled once and kept in a bounded cache;
 * a program may emit at most {@link RenderLimits#MAX_JQ_RESULTS} values, and its {@code range} at most
 * {@link RenderLimits#MAX_RANGE_ELEMENTS}.
 */
final class JqFilter implements Filter {

    /** Compiled jq programs kept; flows reuse the same few. */
    static final int CACHE_SIZE = 500;
    private static final String ARGUMENT = "expression";
    private static final String RANGE = "range";

    private final Scope builtins = Scope.newEmptyScope();
    private final LruCache<String, JsonQuery> programs = new LruCache<>(CACHE_SIZE);

    JqFilter() {
        BuiltinFunctionLoader.getInstance().loadFunctions(Versions.JQ_1_6, builtins);
        for (int arity = 1; arity <= 3; arity++) {
            builtins.addFunction(RANGE, arity, bounded(builtins.getFunction(RANGE, arity)));
        }
    }

    /** jq's {@code range}, stopped past {@link RenderLimits#MAX_RANGE_ELEMENTS} values: {@code range(1e12)} would run for hours. */
    private static Function bounded(Function range) {
        return (scope, args, in, path, output, version) -> {
            int[] emitted = {0};
            range.apply(scope, args, in, path, (value, valuePath) -> {
                if (++emitted[0] > RenderLimits.MAX_RANGE_ELEMENTS) {
                    throw new JsonQueryException(RenderLimits.exceeded("MAX_RANGE_ELEMENTS", RenderLimits.MAX_RANGE_ELEMENTS, "jq's range"));
                }
                output.emit(value, valuePath);
            }, version);
        };
    }

    @Override
    public List<String> getArgumentNames() {
        return List.of(ARGUMENT);
    }

    @Override
    public Object apply(Object input, Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (input == null) {
            return null;
        }
        if (!(args.get(ARGUMENT) instanceof String expression)) {
            throw new PebbleException(null, "Expected 'jq' to have a jq program as a string argument, but it has "
                    + (args.get(ARGUMENT) == null ? "none" : "a " + args.get(ARGUMENT).getClass().getSimpleName()), lineNumber, self.getName());
        }
        JsonQuery program = programs.computeIfAbsent(expression, e -> compile(e, self, lineNumber));
        JsonNode in = toTree(input, self, lineNumber);
        List<Object> results = new ArrayList<>();
        try {
            program.apply(Scope.newChildScope(builtins), in, value -> {
                if (results.size() == RenderLimits.MAX_JQ_RESULTS) {
                    throw new JsonQueryException(RenderLimits.exceeded("MAX_JQ_RESULTS", RenderLimits.MAX_JQ_RESULTS, "The number of values emitted"));
                }
                results.add(toJava(value));
            });
        } catch (JsonQueryException e) {
            throw new PebbleException(e, "jq '" + expression + "' failed: " + e.getMessage(), lineNumber, self.getName());
        }
        return results;
    }

    int cachedPrograms() {
        return programs.size();
    }

    private static JsonQuery compile(String expression, PebbleTemplate self, int lineNumber) {
        try {
            return JsonQuery.compile(expression, Versions.JQ_1_6);
        } catch (JsonQueryException e) {
            throw new PebbleException(e, "Invalid jq '" + expression + "': " + e.getMessage(), lineNumber, self.getName());
        }
    }

    private static JsonNode toTree(Object input, PebbleTemplate self, int lineNumber) {
        if (!(input instanceof String text)) {
            return JsonPrintingWriter.JSON.valueToTree(input);
        }
        try {
            return JsonPrintingWriter.JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new PebbleException(e, "Expected the input of 'jq' to be JSON text, but it is not: "
                    + e.getOriginalMessage(), lineNumber, self.getName());
        }
    }

    /** Numbers keep their exact type (Integer, Long, Double...); objects and arrays become maps and lists. */
    private static Object toJava(JsonNode value) throws JsonQueryException {
        if (value.isNumber()) {
            return value.numberValue();
        }
        try {
            return JsonPrintingWriter.JSON.treeToValue(value, Object.class);
        } catch (JsonProcessingException e) {
            throw new JsonQueryException(e);
        }
    }
}
