package io.millrace.core.expression;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import net.thisptr.jackson.jq.Expression;
import net.thisptr.jackson.jq.JsonQuery;
import net.thisptr.jackson.jq.PathOutput;
import net.thisptr.jackson.jq.Scope;
import net.thisptr.jackson.jq.exception.JsonQueryException;
import net.thisptr.jackson.jq.internal.tree.ThisObject;
import net.thisptr.jackson.jq.path.Path;

/**
 * Makes a compiled jq program spend the render's budget as it runs its operators, not only its builtins: every node of
 * the program's tree spends a step each time it is applied and each time it emits a value. So a program that loops over
 * arrays with operators alone ({@code [.[] as $a | .[] as $b | .[] as $c | $a]}: a cube of its input) stops at
 * {@code expression-max-steps} like any other loop, instead of holding the thread that renders it.
 *
 * <p>The library offers no hook for this, so the tree is rewritten once, when the program is compiled: each field of a
 * node that holds an expression (or a list or array of them) gets a counting wrapper around it. Literals and {@code .}
 * are left as they are (they cost one step of their parent, and the library tests some of them by type).
 */
final class JqSteps {
    private static final String LIBRARY = "net.thisptr.jackson.jq.";
    private static final String LITERALS = LIBRARY + "internal.tree.literal.";

    private JqSteps() {
    }

    /** Wraps every expression of {@code program}'s tree, in place; returns {@code program}. */
    static JsonQuery counting(JsonQuery program) {
        instrument(program, Collections.newSetFromMap(new IdentityHashMap<>()));
        return program;
    }

    private static void instrument(Object node, Set<Object> seen) {
        if (node == null || !seen.add(node) || !node.getClass().getName().startsWith(LIBRARY)) {
            return;
        }
        for (Class<?> type = node.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers())) {
                    instrumentField(node, field, seen);
                }
            }
        }
    }

    private static void instrumentField(Object node, Field field, Set<Object> seen) {
        try {
            field.setAccessible(true);
            Object value = field.get(node);
            if (value instanceof Expression expression && field.getType().isAssignableFrom(Counted.class)) {
                instrument(expression, seen);
                field.set(node, wrap(expression));
            } else if (value instanceof List<?> list && field.getType().isAssignableFrom(ArrayList.class)) {
                field.set(node, instrumentList(list, seen));
            } else if (value instanceof Object[] array) {
                for (int i = 0; i < array.length; i++) {
                    instrument(array[i], seen);
                    if (array[i] instanceof Expression expression
                            && array.getClass().getComponentType().isAssignableFrom(Counted.class)) {
                        array[i] = wrap(expression);
                    }
                }
            } else {
                instrument(value, seen);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("Cannot count the steps of jq's " + node.getClass().getName() + "."
                    + field.getName() + ": " + e, e);
        }
    }

    /** The list with its expressions wrapped (a copy: the library's lists may not be modifiable). */
    private static List<?> instrumentList(List<?> list, Set<Object> seen) {
        var copy = new ArrayList<Object>(list.size());
        for (Object element : list) {
            instrument(element, seen);
            copy.add(element instanceof Expression expression ? wrap(expression) : element);
        }
        return copy;
    }

    private static Expression wrap(Expression expression) {
        return expression instanceof Counted || expression instanceof ThisObject
                || expression.getClass().getName().startsWith(LITERALS) ? expression : new Counted(expression);
    }

    /** One node of the program, spending a step when applied and one for each value it emits. */
    record Counted(Expression inner) implements Expression {
        @Override
        public void apply(Scope scope, JsonNode in, Path path, PathOutput output, boolean requirePath)
                throws JsonQueryException {
            RenderBudget budget = RenderBudget.current();
            budget.spend(1);
            inner.apply(scope, in, path, (value, valuePath) -> {
                budget.spend(1);
                checkSize(budget, value);
                output.emit(value, valuePath);
            }, requirePath);
        }

        @Override
        public String toString() {
            return inner.toString();
        }
    }

    /**
     * Fails the render when an operator passed on a string or a list or object bigger than a render may build: one step
     * of {@code . + .} doubles what it is given.
     */
    private static void checkSize(RenderBudget budget, JsonNode value) {
        if (value.isTextual()) {
            budget.checkChars(value.textValue().length(), "A string jq built");
        } else if (value.isContainerNode()) {
            budget.checkElements(value.size(), "A list or object jq built");
        }
    }

    /**
     * Fails the render when {@code value}, a value the program emitted, would print to more characters than a render may
     * build: its nodes may be shared ({@code reduce range(40) as $i (1; [., .])} is 2^40 values in 40 small steps), so
     * they are counted as printed, each as often as it appears, and the count stops past the limit.
     */
    static void checkPrinted(RenderBudget budget, JsonNode value) {
        long max = budget.limits().maxStringChars();
        long chars = 0;
        var pending = new ArrayDeque<JsonNode>();
        pending.push(value);
        while (!pending.isEmpty() && chars <= max) {
            JsonNode node = pending.pop();
            chars += node.isTextual() ? node.textValue().length() + 3 : 2;
            node.forEach(pending::push);
        }
        budget.checkChars(chars, "The value jq emitted");
    }
}
