package io.millrace.app;

import java.util.ArrayList;
import java.util.List;

/**
 * What checking one corpus case found: deviations from Kestra (expected vs actual), assertions the engine
 * offers no way to check (unsupported), and assertion kinds this runner does not know (which fail the test
 * whatever the flow's bar, so a richer corpus is never half-checked).
 */
final class Findings {
    enum Result { PASS, FAIL, REFUSED, UNSUPPORTED }

    private final List<String> deviations = new ArrayList<>();
    private final List<String> unsupported = new ArrayList<>();
    private final List<String> unknown = new ArrayList<>();
    private boolean refused;

    void deviation(String what) {
        deviations.add(what);
    }

    /** Expected {@code expected}, but found {@code actual}: recorded unless they are equal. */
    void expect(String what, Object expected, Object actual) {
        if (!String.valueOf(expected).equals(String.valueOf(actual))) {
            deviation(what + ": expected " + expected + ", but was " + actual);
        }
    }

    void refused(String why) {
        refused = true;
        deviation(why);
    }

    void unsupported(String what) {
        unsupported.add(what);
    }

    void unknown(String what) {
        unknown.add(what);
    }

    Result result() {
        if (refused) {
            return Result.REFUSED;
        }
        if (!deviations.isEmpty() || !unknown.isEmpty()) {
            return Result.FAIL;
        }
        return unsupported.isEmpty() ? Result.PASS : Result.UNSUPPORTED;
    }

    /** The first thing that keeps the case from passing, or an empty string. */
    String first() {
        if (!unknown.isEmpty()) {
            return "unknown assertion: " + unknown.getFirst();
        }
        if (!deviations.isEmpty()) {
            return deviations.getFirst();
        }
        return unsupported.isEmpty() ? "" : "unsupported: " + unsupported.getFirst();
    }

    List<String> all() {
        var all = new ArrayList<String>();
        unknown.forEach(u -> all.add("unknown assertion: " + u));
        all.addAll(deviations);
        unsupported.forEach(u -> all.add("unsupported: " + u));
        return all;
    }

    List<String> unknown() {
        return List.copyOf(unknown);
    }
}
