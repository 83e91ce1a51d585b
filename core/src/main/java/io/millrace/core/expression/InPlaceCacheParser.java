package io.millrace.core.expression;

import io.pebbletemplates.pebble.lexer.Token;
import io.pebbletemplates.pebble.lexer.TokenStream;
import io.pebbletemplates.pebble.node.BodyNode;
import io.pebbletemplates.pebble.node.RenderableNode;
import io.pebbletemplates.pebble.parser.Parser;
import io.pebbletemplates.pebble.tokenParser.TokenParser;

/**
 * {@code {% cache key %}body{% endcache %}}, rendered in place as a {@link BoundedBody}. Expressions keep no tag
 * cache (a cached text would outlive the variables it was rendered with), so Pebble's cache tag would render the body
 * into a text of its own and print it, every time; rendering it in place prints the same, and its writes stay bounded.
 * The key is parsed, never evaluated (it named nothing that is kept).
 */
final class InPlaceCacheParser implements TokenParser {

    static final String TAG = "cache";

    @Override
    public String getTag() {
        return TAG;
    }

    @Override
    public RenderableNode parse(Token token, Parser parser) {
        TokenStream stream = parser.getStream();
        stream.next();
        parser.getExpressionParser().parseExpression();
        stream.expect(Token.Type.EXECUTE_END);
        BodyNode body = parser.subparse(next -> next.test(Token.Type.NAME, "endcache"));
        stream.next();
        stream.expect(Token.Type.EXECUTE_END);
        return new BoundedBody(body);
    }
}
