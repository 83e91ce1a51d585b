package io.millrace.core.expression;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.core.cache.LruCache;
import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;
import net.thisptr.jackson.jq.BuiltinFunctionLoader;
import net.thisptr.jackson.jq.Expression;
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
 * values, objects and arrays become maps and lists. Each program is compiled once and kept in a bounded cache.
 *
 * <p>A program spends the render's budget: a step for each call of a builtin and each evaluation of a builtin's
 * argument (so {@code until}, {@code while}, {@code limit}, {@code recurse} and the like count their rounds), for each
 * value {@code range} produces, for each regular expression search ({@link JqRegex}, also bounded in
 * time) and for each value emitted; it may emit at most {@code expression-max-jq-results} values, and its input may
 * print to at most {@code expression-max-string-chars} characters. A limit stops the program with a
 * {@link RenderLimitException}, which jq's {@code try} does not catch. Its operators spend steps too ({@link JqSteps}):
 * a program that loops over arrays with operators alone ({@code .[] as $a | .[] as $b | ...}) stops like any loop.
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
        builtins.addFunction("_match_impl", 3, JqRegex.MATCH);
        builtins.addFunction("_sub_impl", 3, JqRegex.SUB);
        for (int arity = 1; arity <= 3; arity++) {
            builtins.addFunction(RANGE, arity, counted(builtins.getFunction(RANGE, arity)));
        }
        Map.copyOf(builtins.getLocalFunctions()).forEach((name, function) -> builtins.addFunction(name, spending(function)));
    }

    /**
     * A builtin that spends a step each time it is called and each time it evaluates one of its arguments: a loop
     * such as {@code until(cond; update)} evaluates its arguments once a round, whether it is written in Java or in jq.
     */
    private static Function spending(Function builtin) {
        return (scope, args, in, path, output, version) -> {
            RenderBudget budget = RenderBudget.current();
            budget.spend(1);
            List<Expression> spendingArgs = new ArrayList<>(args.size());
            for (Expression arg : args) {
                spendingArgs.add((argScope, argIn, argPath, argOutput, requirePath) -> {
                    budget.spend(1);
                    arg.apply(argScope, argIn, argPath, argOutput, requirePath);
                });
            }
            builtin.apply(scope, spendingArgs, in, path, output, version);
        };
    }

    /** jq's {@code range}, spending a step for each value it produces: {@code last(range(1e12))} emits nothing for hours. */
    private static Function counted(Function range) {
        return (scope, args, in, path, output, version) -> {
            RenderBudget budget = RenderBudget.current();
            range.apply(scope, args, in, path, (value, valuePath) -> {
                budget.spend(1);
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
        RenderBudget budget = RenderBudget.current();
        int maxResults = budget.limits().maxJqResults();
        List<Object> results = new ArrayList<>();
        try {
            program.apply(Scope.newChildScope(builtins), in, value -> {
                budget.spend(1);
                if (results.size() == maxResults) {
                    budget.fail(RenderLimits.exceeded(RenderLimits.MAX_JQ_RESULTS, maxResults, "The number of values jq emitted"));
                }
                JqSteps.checkPrinted(budget, value);
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
            return JqSteps.counting(JsonQuery.compile(expression, Versions.JQ_1_6));
        } catch (JsonQueryException e) {
            throw new PebbleException(e, "Invalid jq '" + expression + "': " + e.getMessage(), lineNumber, self.getName());
        }
    }

    /** The input as a JSON tree; a list or map is measured first, as it may print far bigger than it weighs. */
    private static JsonNode toTree(Object input, PebbleTemplate self, int lineNumber) {
        if (!(input instanceof String text)) {
            RenderBudget budget = RenderBudget.current();
            budget.checkChars(Sizes.printedChars(input, budget.limits().maxStringChars()), "The input of 'jq'");
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
