package io.millrace.core.expression;

import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * {@code secret('NAME')}: the value of a secret, resolved through the {@link TaskSecrets} of the task run being
 * rendered (the reserved variable {@link Variables#SECRETS}), which keeps it to mask it. Only the worker sets that
 * variable, for a task's properties: anywhere else (the executor's runIf, If, Switch, ForEach, Subflow and flow
 * outputs, the gateway's and triggers' renders, the inside of a macro, which sees no outer variable) the render fails
 * and says so.
 */
final class SecretFunction implements Function {

    static final String NAME = "secret";
    private static final String ARGUMENT = "key";

    @Override
    public List<String> getArgumentNames() {
        return List.of(ARGUMENT);
    }

    @Override
    public Object execute(Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (!(args.get(ARGUMENT) instanceof String name)) {
            throw new PebbleException(null, "Expected '" + NAME + "' to have a secret's name (a string) as argument,"
                    + " but it has " + describe(args.get(ARGUMENT)), lineNumber, self.getName());
        }
        if (!(context.getVariable(Variables.SECRETS) instanceof TaskSecrets secrets)) {
            throw new PebbleException(null, "Expected " + NAME + "('" + ExpressionException.shorten(name) + "') in"
                    + " a task's property, rendered on the worker that runs the task, but it is rendered elsewhere (by"
                    + " the executor: runIf, If, Switch, ForEach, Subflow inputs, flow outputs; by the gateway or a"
                    + " trigger; or inside a macro), where secrets are never resolved", lineNumber, self.getName());
        }
        try {
            return secrets.resolve(name);
        } catch (SecretException e) {
            throw new PebbleException(null, e.getMessage(), lineNumber, self.getName());
        }
    }

    private static String describe(Object value) {
        return value == null ? "none" : "a " + value.getClass().getSimpleName();
    }
}
