package io.millrace.core.flow;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which tasks' outputs a task's expressions read, so that the variables built for it carry those outputs and not
 * every output of the execution. Found in the text of its properties: {@code outputs.t} and {@code outputs['t']}
 * name task t; any other use of {@code outputs} (iterating it, a computed key) may read any task's, and so does a
 * call that reads outputs itself. Likewise whether they read the {@code trigger} variable: a template reaches a
 * variable of its own only by its name.
 */
public final class OutputReferences {
    /** {@code outputs} as a variable of its own, not the attribute of another ({@code parent.outputs}). */
    private static final Pattern OUTPUTS = Pattern.compile("(?<![\\w.])outputs\\b");
    /** {@code trigger} as a variable of its own, not the attribute of another ({@code vars.trigger}). */
    private static final Pattern TRIGGER = Pattern.compile("(?<![\\w.])trigger\\b");
    private static final Pattern BY_NAME = Pattern.compile("\\G\\s*(?:\\.\\s*([A-Za-z_][\\w]*)|\\[\\s*(['\"])([^'\"]+)\\2\\s*])");

    private OutputReferences() {
    }

    /** The task ids whose outputs these values may read, or null when they may read any. */
    public static Set<String> of(Collection<?> values) {
        var ids = new HashSet<String>();
        for (Object value : values) {
            if (!collect(value, ids)) {
                return null;
            }
        }
        return ids;
    }

    /** Whether these values may read the {@code trigger} variable: whether any text among them names it. */
    public static boolean readTrigger(Collection<?> values) {
        return values.stream().anyMatch(OutputReferences::namesTrigger);
    }

    private static boolean namesTrigger(Object value) {
        return switch (value) {
            case String text -> TRIGGER.matcher(text).find();
            case Map<?, ?> map -> map.values().stream().anyMatch(OutputReferences::namesTrigger);
            case Collection<?> list -> list.stream().anyMatch(OutputReferences::namesTrigger);
            case null, default -> false;
        };
    }

    private static boolean collect(Object value, Set<String> ids) {
        return switch (value) {
            case String text -> collect(text, ids);
            case Map<?, ?> map -> map.values().stream().allMatch(v -> collect(v, ids));
            case Collection<?> list -> list.stream().allMatch(v -> collect(v, ids));
            case null, default -> true;
        };
    }

    private static boolean collect(String text, Set<String> ids) {
        Matcher outputs = OUTPUTS.matcher(text);
        while (outputs.find()) {
            Matcher name = BY_NAME.matcher(text);
            if (!name.find(outputs.end())) {
                return false;
            }
            ids.add(name.group(1) != null ? name.group(1) : name.group(3));
        }
        return true;
    }
}
