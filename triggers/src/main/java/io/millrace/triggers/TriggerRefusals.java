package io.millrace.triggers;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The Kafka triggers that may not run (docs/security.md). A trigger is checked once for each revision of its
 * declaration: checking may look up the names a flow gave (its brokers, its schema registry), which must not be done
 * again for every batch read from the flows topic on the one thread that follows it. A refusal is reported once.
 */
final class TriggerRefusals {
    private final Function<FlowTrigger, Optional<String>> check;
    private final Consumer<Refusal> report;
    /** The triggers checked and refused, by key, as declared when checked. */
    private final Map<String, FlowTrigger> refused = new HashMap<>();

    /** A trigger that may not run, and why. */
    record Refusal(String key, FlowTrigger target, String why) {
    }

    TriggerRefusals(Function<FlowTrigger, Optional<String>> check, Consumer<Refusal> report) {
        this.check = check;
        this.report = report;
    }

    /** Whether the trigger may not run: checked only when {@code target} differs from the declaration last refused. */
    boolean refuses(String key, FlowTrigger target) {
        if (target.equals(refused.get(key))) {
            return true;
        }
        String why = check.apply(target).orElse(null);
        if (why == null) {
            refused.remove(key);
            return false;
        }
        refused.put(key, target);
        report.accept(new Refusal(key, target, why));
        return true;
    }

    /** Forgets the triggers no flow declares any more. */
    void retainAll(Collection<String> keys) {
        refused.keySet().retainAll(keys);
    }
}
