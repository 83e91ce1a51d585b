package io.millrace.gateway;

import io.millrace.config.ApiAccess;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What keeps web pages off an open API (standalone without tokens, listening on 127.0.0.1). Loopback keeps other
 * machines out, not the browser of the developer who runs it: a page of any site can send it requests (cross-site
 * requests), or point its own name at 127.0.0.1 (DNS rebinding) and read the answers as its own. So an open API
 * answers only a {@code Host} naming this machine's loopback ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}, any
 * port) or one of {@code api-allowed-hosts}, and only a request without {@code Origin} or from a page of this machine
 * (a loopback origin) or of {@code cors-allowed-origins}; anything else is 403, whatever the path.
 */
final class LocalOnly {
    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]");

    private final Set<String> hosts;
    private final Set<String> origins;

    LocalOnly(ApiAccess access) {
        hosts = new HashSet<>(LOOPBACK);
        hosts.addAll(access.allowedHosts());
        origins = Set.copyOf(access.corsAllowedOrigins());
    }

    /** @throws ApiException 403 for a {@code Host} or an {@code Origin} the open API does not answer */
    void check(String host, String origin) {
        String name = host == null ? null : hostName(host);
        if (name == null || !hosts.contains(name)) {
            throw new ApiException(403, "Expected a Host header naming this machine (localhost, 127.0.0.1 or [::1], or"
                    + " one of api-allowed-hosts), but got '" + host + "': the open API answers this machine alone",
                    List.of());
        }
        if (origin != null && !allowedOrigin(origin)) {
            throw new ApiException(403, "Expected no Origin or a page of this machine (or one of"
                    + " cors-allowed-origins), but the request comes from a page of '" + origin + "': web pages of"
                    + " other sites may not call the open API", List.of());
        }
    }

    private boolean allowedOrigin(String origin) {
        String normalized = origin.trim().toLowerCase(Locale.ROOT);
        if (origins.contains(normalized)) {
            return true;
        }
        try {
            URI uri = new URI(normalized);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && LOOPBACK.contains(uri.getHost()) && (uri.getPath() == null || uri.getPath().isEmpty());
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** A {@code Host} header's name without its port, in lower case; null when it is not one. */
    static String hostName(String host) {
        String value = host.trim().toLowerCase(Locale.ROOT);
        int end = value.startsWith("[") ? value.indexOf(']') + 1 : value.indexOf(':') < 0 ? value.length()
                : value.indexOf(':');
        if (end <= 0) {
            return null;
        }
        String port = value.substring(end);
        return port.isEmpty() || port.matches(":[0-9]{1,5}") ? value.substring(0, end) : null;
    }
}
