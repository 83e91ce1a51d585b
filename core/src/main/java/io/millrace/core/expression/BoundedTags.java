package io.millrace.core.expression;

import io.pebbletemplates.pebble.lexer.Token;
import io.pebbletemplates.pebble.node.BlockNode;
import io.pebbletemplates.pebble.node.BodyNode;
import io.pebbletemplates.pebble.node.ForNode;
import io.pebbletemplates.pebble.node.MacroNode;
import io.pebbletemplates.pebble.node.PrintNode;
import io.pebbletemplates.pebble.node.RenderableNode;
import io.pebbletemplates.pebble.node.SetNode;
import io.pebbletemplates.pebble.node.expression.FilterExpression;
import io.pebbletemplates.pebble.node.expression.RenderableNodeExpression;
import io.pebbletemplates.pebble.parser.Parser;
import io.pebbletemplates.pebble.tokenParser.TokenParser;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Pebble's tags whose body repeats or builds a text of its own, parsed by Pebble's own parsers and then rebuilt with
 * a {@link BoundedBody}: {@code for} (each iteration spends a step), {@code macro}, {@code filter} and
 * {@code block} (each render spends a step and its text is bounded), {@code cache} (rendered in place, see
 * {@link InPlaceCacheParser}); and {@code set}, whose value is bounded ({@link BoundedValue}). Other tags are Pebble's.
 */
final class BoundedTags {

    private static final Map<String, UnaryOperator<RenderableNode>> REBUILDS = Map.of(
            "for", node -> forLoop((ForNode) node),
            "macro", node -> new BoundedMacroNode((MacroNode) node),
            "filter", node -> filterTag((PrintNode) node),
            "block", node -> block((BlockNode) node),
            "set", node -> set((SetNode) node));

    private BoundedTags() {
    }

    /** The parsers given, those of the tags above replaced by bounded ones. */
    static List<TokenParser> of(List<TokenParser> parsers) {
        return parsers.stream().map(BoundedTags::bounded).toList();
    }

    private static TokenParser bounded(TokenParser parser) {
        if (parser.getTag().equals(InPlaceCacheParser.TAG)) {
            return new InPlaceCacheParser();
        }
        UnaryOperator<RenderableNode> rebuild = REBUILDS.get(parser.getTag());
        return rebuild == null ? parser : new Rebuilt(parser, rebuild);
    }

    private static RenderableNode forLoop(ForNode loop) {
        return new ForNode(loop.getLineNumber(), loop.getIterationVariable(), loop.getIterable(),
                new BoundedBody(loop.getBody()), loop.getElseBody());
    }

    /** {@code {% filter f %}body{% endfilter %}} is a print of {@code body | f}: its innermost input is the body. */
    private static RenderableNode filterTag(PrintNode print) {
        FilterExpression filter = (FilterExpression) print.getExpression();
        while (filter.getLeftExpression() instanceof FilterExpression inner) {
            filter = inner;
        }
        RenderableNodeExpression body = (RenderableNodeExpression) filter.getLeftExpression();
        filter.setLeft(new RenderableNodeExpression(new BoundedBody((BodyNode) body.getNode()), body.getLineNumber()));
        return print;
    }

    private static RenderableNode block(BlockNode block) {
        return new BlockNode(block.getLineNumber(), block.getName(), new BoundedBody(block.getBody()));
    }

    private static RenderableNode set(SetNode set) {
        return new SetNode(set.getLineNumber(), set.getName(),
                new BoundedValue(set.getValue(), "The value set to '" + set.getName() + "'"));
    }

    /** A tag parsed by Pebble's parser, then rebuilt. */
    private record Rebuilt(TokenParser parser, UnaryOperator<RenderableNode> rebuild) implements TokenParser {

        @Override
        public String getTag() {
            return parser.getTag();
        }

        @Override
        public RenderableNode parse(Token token, Parser pebble) {
            return rebuild.apply(parser.parse(token, pebble));
        }
    }
}
