package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/** A function that spends a step of the render's budget and whose result may be no bigger than a render may build. */
final class BoundedFunction implements Function {

    private final String name;
    private final Function function;

    BoundedFunction(String name, Function function) {
        this.name = name;
        this.function = function;
    }

    @Override
    public List<String> getArgumentNames() {
        return function.getArgumentNames();
    }

    @Override
    public Object execute(Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        RenderBudget.current().spend(1);
        return Sizes.checkBuilt(function.execute(args, self, context, lineNumber), "The result of the function '" + name + "'");
    }
}
