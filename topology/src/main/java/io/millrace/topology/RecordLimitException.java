package io.millrace.topology;

/** A decision would send a record, or records, larger than the executor's limits allow; its message names the limit. */
final class RecordLimitException extends RuntimeException {

    RecordLimitException(String message) {
        super(message, null, false, false);
    }
}
