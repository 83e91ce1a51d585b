package io.millrace.gateway;

import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Cross-origin calls for a browser UI served from another origin ({@code cors-allowed-origins}; none by default, and
 * then browsers let no page of another origin read an answer). A call from one of those origins gets
 * {@code Access-Control-Allow-Origin} with its origin, and its preflight ({@code OPTIONS} with
 * {@code Access-Control-Request-Method}) 204 with the methods and headers the API takes; a preflight from any other
 * origin is 403. Only the origins listed: never {@code *}, never credentials (tokens travel in
 * {@code Authorization}, set by the page).
 */
final class Cors {
    private static final String METHODS = "GET, POST, PUT, DELETE";
    private static final String HEADERS = "Authorization, Content-Type, Accept, Last-Event-ID";
    private static final String EXPOSED = "Retry-After, WWW-Authenticate";

    private final Set<String> origins;

    Cors(List<String> origins) {
        this.origins = Set.copyOf(origins);
    }

    /** Before every call: the CORS headers of an answer to an allowed origin. */
    void headers(Context ctx) {
        ctx.header("Vary", "Origin");
        String origin = ctx.header("Origin");
        if (allowed(origin)) {
            ctx.header("Access-Control-Allow-Origin", origin);
            ctx.header("Access-Control-Expose-Headers", EXPOSED);
        }
    }

    /** An {@code OPTIONS} call: 204 for a preflight of an allowed origin, else 403. */
    void preflight(Context ctx) {
        String origin = ctx.header("Origin");
        if (!allowed(origin) || ctx.header("Access-Control-Request-Method") == null) {
            throw new ApiException(403, "Expected a CORS preflight (Origin and Access-Control-Request-Method) from"
                    + " one of cors-allowed-origins, but got Origin " + (origin == null ? "none" : "'" + origin + "'"),
                    List.of());
        }
        ctx.header("Access-Control-Allow-Methods", METHODS);
        ctx.header("Access-Control-Allow-Headers", HEADERS);
        ctx.header("Access-Control-Max-Age", "600");
        ctx.status(204);
    }

    boolean allowed(String origin) {
        return origin != null && origins.contains(origin.trim().toLowerCase(Locale.ROOT));
    }
}
