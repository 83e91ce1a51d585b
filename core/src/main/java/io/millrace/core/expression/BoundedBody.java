package io.millrace.core.expression;

import io.pebbletemplates.pebble.node.BodyNode;
import io.pebbletemplates.pebble.template.EvaluationContextImpl;
import io.pebbletemplates.pebble.template.PebbleTemplateImpl;

import java.io.IOException;
import java.io.Writer;

/**
 * The body of a tag that may render many times or into a text of its own ({@code for}, {@code macro},
 * {@code filter}, {@code block}, {@code cache}): each render spends a step, and writes through a
 * {@link BoundedWriter}, so a loop counts its iterations and a macro or filter body cannot build a text bigger than
 * a render may build.
 */
final class BoundedBody extends BodyNode {

    BoundedBody(BodyNode body) {
        super(body.getLineNumber(), body.getChildren());
    }

    @Override
    public void render(PebbleTemplateImpl self, Writer writer, EvaluationContextImpl context) throws IOException {
        RenderBudget.current().spend(1);
        super.render(self, BoundedWriter.around(writer), context);
    }
}
