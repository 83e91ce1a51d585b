package io.millrace.gateway;

import java.util.List;

/**
 * An answer other than success, with the HTTP status to send. The message is meant for the caller
 * (never a stack trace); {@code details} lists every problem found, when there are several.
 */
final class ApiException extends RuntimeException {
    private final int status;
    private final List<String> details;
    private final int retryAfterSeconds;

    ApiException(int status, String message, List<String> details) {
        this(status, message, details, 0);
    }

    private ApiException(int status, String message, List<String> details, int retryAfterSeconds) {
        super(message, null, false, false);
        this.status = status;
        this.details = List.copyOf(details);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** 401: the answer says no more than that a valid bearer token is needed. */
    static ApiException unauthorized() {
        return new ApiException(401, "Unauthorized: a valid bearer token is required (Authorization: Bearer <token>)",
                List.of());
    }

    /** 429 with a {@code Retry-After} of the given seconds. */
    static ApiException tooManyRequests(String message, int retryAfterSeconds) {
        return new ApiException(429, message, List.of(), retryAfterSeconds);
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

    /** 500 for a failure the gateway has already logged, with a message that tells the caller no internals. */
    static ApiException internal(String message) {
        return new ApiException(500, message, List.of());
    }

    static ApiException unavailable(String message) {
        return new ApiException(503, message, List.of());
    }

    /** 503 with a {@code Retry-After} of the given seconds. */
    static ApiException unavailable(String message, int retryAfterSeconds) {
        return new ApiException(503, message, List.of(), retryAfterSeconds);
    }

    int status() {
        return status;
    }

    List<String> details() {
        return details;
    }

    /** Seconds for a {@code Retry-After} header, or 0 for none. */
    int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
