package io.millrace.core.expression;

import io.pebbletemplates.pebble.error.AttributeNotFoundException;
import io.pebbletemplates.pebble.extension.AbstractExtension;
import io.pebbletemplates.pebble.node.expression.BinaryExpression;
import io.pebbletemplates.pebble.operator.Associativity;
import io.pebbletemplates.pebble.operator.BinaryOperator;
import io.pebbletemplates.pebble.operator.BinaryOperatorImpl;
import io.pebbletemplates.pebble.operator.BinaryOperatorType;
import io.pebbletemplates.pebble.template.EvaluationContextImpl;
import io.pebbletemplates.pebble.template.PebbleTemplateImpl;

import java.util.List;

/**
 * Kestra's coalescing operators, which Pebble itself does not have:
 * <ul>
 *   <li>{@code a ?? b}: a, unless a is undefined (even under strict variables) or null; then b.</li>
 *   <li>{@code a ??? b}: a, unless a is undefined; a defined null stays null.</li>
 * </ul>
 * Precedence 120 (as Pebble's {@code ..}): binds tighter than {@code ~}, comparisons and {@code and/or},
 * so {@code outputs.x.value ?? 'none' ~ '!'} is {@code (outputs.x.value ?? 'none') ~ '!'}.
 */
final class CoalescingExtension extends AbstractExtension {

    private static final int PRECEDENCE = 120;

    @Override
    public List<BinaryOperator> getBinaryOperators() {
        return List.of(
                new BinaryOperatorImpl("???", PRECEDENCE, () -> new Coalescing(false), BinaryOperatorType.NORMAL, Associativity.LEFT),
                new BinaryOperatorImpl("??", PRECEDENCE, () -> new Coalescing(true), BinaryOperatorType.NORMAL, Associativity.LEFT));
    }

    private static final class Coalescing extends BinaryExpression<Object> {
        private final boolean nullFallsBack;

        Coalescing(boolean nullFallsBack) {
            this.nullFallsBack = nullFallsBack;
        }

        @Override
        public Object evaluate(PebbleTemplateImpl self, EvaluationContextImpl context) {
            try {
                Object left = getLeftExpression().evaluate(self, context);
                if (left != null || !nullFallsBack) {
                    return left;
                }
            } catch (AttributeNotFoundException undefined) {
                // undefined (root variable or attribute): fall back to the right side
            }
            return getRightExpression().evaluate(self, context);
        }
    }
}
