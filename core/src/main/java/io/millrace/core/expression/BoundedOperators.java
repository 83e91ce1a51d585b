package io.millrace.core.expression;

import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.extension.escaper.SafeString;
import io.pebbletemplates.pebble.node.expression.AddExpression;
import io.pebbletemplates.pebble.node.expression.ConcatenateExpression;
import io.pebbletemplates.pebble.operator.Associativity;
import io.pebbletemplates.pebble.operator.BinaryOperator;
import io.pebbletemplates.pebble.operator.BinaryOperatorImpl;
import io.pebbletemplates.pebble.operator.BinaryOperatorType;
import io.pebbletemplates.pebble.template.EvaluationContextImpl;
import io.pebbletemplates.pebble.template.PebbleTemplateImpl;
import io.pebbletemplates.pebble.utils.OperatorUtils;

import java.util.List;
import java.util.Map;

/**
 * Pebble's operators that build a value, bounded: {@code a ~ b} and {@code a + b} (on strings and lists) measure their
 * operands first, so a loop that doubles a string or a list fails at {@code expression-max-string-chars} or
 * {@code expression-max-collection-size} instead of filling the memory. They keep Pebble's symbols, precedences and
 * results; other operators are Pebble's.
 */
final class BoundedOperators {

    private static final Map<String, BinaryOperator> BOUNDED = Map.of(
            "~", new BinaryOperatorImpl("~", 110, Concatenation::new, BinaryOperatorType.NORMAL, Associativity.LEFT),
            "+", new BinaryOperatorImpl("+", 40, Addition::new, BinaryOperatorType.NORMAL, Associativity.LEFT));

    private BoundedOperators() {
    }

    /** The operators given, {@code ~} and {@code +} replaced by bounded ones. */
    static List<BinaryOperator> of(List<BinaryOperator> operators) {
        return operators.stream().map(operator -> BOUNDED.getOrDefault(operator.getSymbol(), operator)).toList();
    }

    /** The string {@code left} then {@code right} make, checked before it is built; null adds nothing. */
    static String concatenate(Object left, Object right, String operator) {
        RenderBudget budget = RenderBudget.current();
        long limit = budget.limits().maxStringChars();
        long chars = (left == null ? 0 : Sizes.printedChars(left, limit)) + (right == null ? 0 : Sizes.printedChars(right, limit));
        budget.checkChars(chars, "A string built by '" + operator + "'");
        budget.spend(1 + chars / Sizes.CHARS_PER_STEP);
        StringBuilder text = new StringBuilder((int) chars);
        if (left != null) {
            text.append(left);
        }
        if (right != null) {
            text.append(right);
        }
        return text.toString();
    }

    private static final class Concatenation extends ConcatenateExpression {

        @Override
        public String evaluate(PebbleTemplateImpl self, EvaluationContextImpl context) {
            return concatenate(getLeftExpression().evaluate(self, context), getRightExpression().evaluate(self, context), "~");
        }
    }

    private static final class Addition extends AddExpression {

        @Override
        public Object evaluate(PebbleTemplateImpl self, EvaluationContextImpl context) {
            Object left = getLeftExpression().evaluate(self, context);
            Object right = getRightExpression().evaluate(self, context);
            if (isText(left) || isText(right)) {
                return concatenate(String.valueOf(left), String.valueOf(right), "+");
            }
            Object sum;
            try {
                sum = OperatorUtils.add(left, right);
            } catch (RuntimeException e) {
                throw new PebbleException(e, "Could not perform addition", getLineNumber(), self.getName());
            }
            RenderBudget.current().spend(1 + Sizes.elements(sum));
            return Sizes.checkBuilt(sum, "A list built by '+'");
        }

        /** What Pebble's addition concatenates rather than adds. */
        private static boolean isText(Object operand) {
            return operand instanceof String || operand instanceof SafeString;
        }
    }
}
