package io.millrace.gateway;

import java.util.List;

/**
 * An answer other than success, with the HTTP status to send. The message is meant for the caller
 * (never a stack trace); {@code details} lists every problem found, when there are several.
 */
final class ApiException extends RuntimeException {
    private final int status;
    private final List<String> details;

    ApiException(int status, String message, List<String> details) {
        super(message, null, false, false);
        this.status = status;
        this.details = List.copyOf(details);
    }

    static ApiException badRequest(String message) {
        return new ApiException(400, message, List.of());
    }

    static ApiException badRequest(String message, List<String> details) {
        return new ApiException(400, message, details);
    }

    static ApiException notFound(String message) {
        return new ApiException(404, message, List.of());
    }

    static ApiException conflict(String message) {
        return new ApiException(409, message, List.of());
    }

    static ApiException unavailable(String message) {
        return new ApiException(503, message, List.of());
    }

    int status() {
        return status;
    }

    List<String> details() {
        return details;
    }
}
