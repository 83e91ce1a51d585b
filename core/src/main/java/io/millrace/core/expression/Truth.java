package io.millrace.core.expression;

import java.util.Set;

/**
 * Kestra's truth of a rendered condition (If, runIf, Fail's condition): false exactly when the rendered text is
 * {@code "false"}, {@code "0"}, {@code "-0"} or empty, or there is none; anything else is true. The text is compared
 * as it is: {@code "False"}, {@code " false"} and {@code "0.0"} are true, as they are in Kestra.
 */
public final class Truth {

    private static final Set<String> FALSE = Set.of("false", "0", "-0", "");

    private Truth() {
    }

    public static boolean isTruthy(String rendered) {
        return rendered != null && !FALSE.contains(rendered);
    }
}
