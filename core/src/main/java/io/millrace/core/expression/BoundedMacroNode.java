package io.millrace.core.expression;

import io.pebbletemplates.pebble.node.MacroNode;
import io.pebbletemplates.pebble.template.EvaluationContextImpl;
import io.pebbletemplates.pebble.template.Macro;
import io.pebbletemplates.pebble.template.PebbleTemplateImpl;

import java.util.List;
import java.util.Map;

/**
 * A macro whose body is a {@link BoundedBody} (each call spends a step; its text is bounded) and whose arguments may
 * be no bigger than a render may build: a macro that calls itself with {@code "#{s}#{s}"} would double a string at
 * each call, and string interpolation is built by Pebble's parser, out of reach of the bounded {@code ~}.
 */
final class BoundedMacroNode extends MacroNode {

    BoundedMacroNode(MacroNode macro) {
        super(macro.getName(), macro.getArgs(), new BoundedBody(macro.getBody()));
    }

    @Override
    public Macro getMacro() {
        Macro macro = super.getMacro();
        return new Macro() {
            @Override
            public List<String> getArgumentNames() {
                return macro.getArgumentNames();
            }

            @Override
            public String getName() {
                return macro.getName();
            }

            @Override
            public String call(PebbleTemplateImpl self, EvaluationContextImpl context, Map<String, Object> args) {
                args.forEach((name, value) -> Sizes.checkBuilt(value,
                        "The argument '" + name + "' of the macro '" + macro.getName() + "'"));
                return macro.call(self, context, args);
            }
        };
    }
}
