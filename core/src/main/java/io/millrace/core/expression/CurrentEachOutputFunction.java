package io.millrace.core.expression;

import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.template.EvaluationContext;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.List;
import java.util.Map;

/**
 * {@code currentEachOutput(outputs['t'])}: the outputs of task {@code t} in the current loop iteration. Inside loops
 * a task's outputs are nested by iteration value ({@code outputs['t'][outer][inner]}); this walks them, as Kestra
 * does, with the values of the enclosing iterations from {@code parents} (outermost first; entries without a
 * {@code taskrun} are skipped), then with {@code taskrun.value}. An enclosing iteration that has no outputs fails
 * the render; a missing last level (or no {@code taskrun.value}) gives null.
 */
final class CurrentEachOutputFunction implements Function {

    static final String NAME = "currentEachOutput";
    private static final String ARGUMENT = "outputs";

    @Override
    public List<String> getArgumentNames() {
        return List.of(ARGUMENT);
    }

    @Override
    public Object execute(Map<String, Object> args, PebbleTemplate self, EvaluationContext context, int lineNumber) {
        if (!(args.get(ARGUMENT) instanceof Map<?, ?> outputs)) {
            throw new PebbleException(null, "Expected '" + NAME + "' to have a task's outputs (a map) as argument, but it has "
                    + describe(args.get(ARGUMENT)), lineNumber, self.getName());
        }
        Map<?, ?> level = outputs;
        List<?> parents = context.getVariable("parents") instanceof List<?> list ? list : List.of();
        for (int i = parents.size() - 1; i >= 0; i--) {
            if (parents.get(i) instanceof Map<?, ?> parent && parent.get("taskrun") instanceof Map<?, ?> taskRun) {
                Object value = taskRun.get("value");
                if (!(get(level, value) instanceof Map<?, ?> next)) {
                    throw new PebbleException(null, "Expected '" + NAME + "' to find outputs for the enclosing iteration '"
                            + value + "', but there are none", lineNumber, self.getName());
                }
                level = next;
            }
        }
        if (!(context.getVariable("taskrun") instanceof Map<?, ?> taskRun)) {
            throw new PebbleException(null, "Expected '" + NAME + "' to be used in a task run, but there is no 'taskrun'",
                    lineNumber, self.getName());
        }
        return get(level, taskRun.get("value"));
    }

    /** {@code map.get(key)}, null for a null key (immutable maps reject it). */
    private static Object get(Map<?, ?> map, Object key) {
        return key == null ? null : map.get(key);
    }

    private static String describe(Object value) {
        return value == null ? "none" : "a " + value.getClass().getSimpleName();
    }
}
