package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.NodeVisitor;
import io.pebbletemplates.pebble.node.expression.Expression;
import io.pebbletemplates.pebble.template.EvaluationContextImpl;
import io.pebbletemplates.pebble.template.PebbleTemplateImpl;

/** The value of a {@code set}, which may be no bigger than a render may build (a loop could otherwise grow it). */
final class BoundedValue implements Expression<Object> {

    private final Expression<?> value;
    private final String what;

    BoundedValue(Expression<?> value, String what) {
        this.value = value;
        this.what = what;
    }

    @Override
    public Object evaluate(PebbleTemplateImpl self, EvaluationContextImpl context) {
        return Sizes.checkBuilt(value.evaluate(self, context), what);
    }

    @Override
    public int getLineNumber() {
        return value.getLineNumber();
    }

    @Override
    public void accept(NodeVisitor visitor) {
        value.accept(visitor);
    }
}
