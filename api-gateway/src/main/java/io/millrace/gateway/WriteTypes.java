package io.millrace.gateway;

import java.util.List;
import java.util.Locale;

/**
 * The content types a write ({@code POST} or {@code PUT} under /api/v1) must declare: JSON, or YAML for a flow. A
 * browser sends a request of another site without asking first only with a form's types or {@code text/plain} (a
 * "simple" request); refusing those (415) leaves a cross-site page no way to write. Webhooks take any body, as their
 * callers send it; a resume takes Kestra's form too ({@code multipart/form-data},
 * {@code application/x-www-form-urlencoded}). {@code DELETE} is never a simple request: a browser asks first, and CORS
 * answers.
 */
final class WriteTypes {
    static final List<String> ACCEPTED = List.of("application/json", "application/yaml", "application/x-yaml",
            "text/yaml", "text/x-yaml");
    static final List<String> FORMS = List.of("multipart/form-data", "application/x-www-form-urlencoded");

    private WriteTypes() {
    }

    /**
     * @param contentType the request's {@code Content-Type}, or null
     * @param formAllowed whether the call takes a form too (a resume)
     * @throws ApiException 415 naming the accepted types
     */
    static void require(String contentType, boolean formAllowed) {
        String type = mediaType(contentType);
        if (ACCEPTED.contains(type) || formAllowed && FORMS.contains(type)) {
            return;
        }
        throw new ApiException(415, "Expected a Content-Type of " + String.join(", ", ACCEPTED)
                + (formAllowed ? ", " + String.join(", ", FORMS) : "") + " (a flow is posted as YAML, everything"
                + " else as JSON), but got " + (contentType == null ? "none" : "'" + contentType + "'"), List.of());
    }

    /** The type without its parameters ({@code ; charset=utf-8}), in lower case; empty when there is none. */
    static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }
}
