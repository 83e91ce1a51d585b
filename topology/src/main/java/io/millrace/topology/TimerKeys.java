package io.millrace.topology;

import io.millrace.core.command.Timer;

/** Timer store keys sort by due time: 13 zero-padded digits of epoch millis, then the timer id. */
final class TimerKeys {
    private TimerKeys() {
    }

    static String of(Timer timer) {
        return prefix(timer.dueAt().toEpochMilli()) + "/" + timer.id();
    }

    /** A key before every timer due at or after {@code epochMillis}. */
    static String from(long epochMillis) {
        return prefix(epochMillis);
    }

    /** A key after every timer due at or before {@code epochMillis}. */
    static String upTo(long epochMillis) {
        return prefix(epochMillis) + "/\uffff";
    }

    private static String prefix(long epochMillis) {
        String digits = Long.toString(epochMillis);
        return digits.length() >= 13 ? digits : "0".repeat(13 - digits.length()) + digits;
    }
}
