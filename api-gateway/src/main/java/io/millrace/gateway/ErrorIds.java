package io.millrace.gateway;

import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;

/**
 * An unexpected failure is answered with a generic message and an error id; the id is logged with the failure and its
 * stack trace, so an operator finds what a caller reports, and the caller learns nothing of the internals.
 */
final class ErrorIds {
    private ErrorIds() {
    }

    /** Logs the failure (with its stack trace, when there is one) under a new error id and returns the id. */
    static String log(Logger log, String what, Throwable failure) {
        String id = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
        if (failure == null) {
            log.warn("Error id {}: {}", id, what);
        } else {
            log.error("Error id {}: {}", id, what, failure);
        }
        return id;
    }
}
