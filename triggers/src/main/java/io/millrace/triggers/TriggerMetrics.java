package io.millrace.triggers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.core.flow.TriggerTypes;
import java.util.Map;

/**
 * What the triggers did, by trigger type (never by flow, so the tags stay few): records turned into executions,
 * unreadable records skipped or dead-lettered, and restarts after a failure. Every series exists at 0 from the start,
 * so a dashboard shows an idle trigger role as 0, not as no data; the counters are made once, here.
 */
final class TriggerMetrics {
    /** One trigger type's counters; Flow triggers dead-letter nothing. */
    private record Counters(Counter started, Counter skipped, Counter deadLettered, Counter restarts, Counter refused) {
    }

    private final Map<String, Counters> byType;

    TriggerMetrics(MeterRegistry registry) {
        this.byType = Map.of(
                TriggerTypes.KAFKA_REALTIME, counters(registry, TriggerTypes.KAFKA_REALTIME, true),
                TriggerTypes.KAFKA_BATCH, counters(registry, TriggerTypes.KAFKA_BATCH, true),
                TriggerTypes.FLOW, counters(registry, TriggerTypes.FLOW, false));
    }

    void read(FlowTrigger trigger, int started, int unreadable, boolean deadLettered) {
        Counters counters = byType.get(trigger.trigger().type());
        if (started > 0) {
            counters.started().increment(started);
        }
        if (unreadable > 0) {
            (deadLettered ? counters.deadLettered() : counters.skipped()).increment(unreadable);
        }
    }

    /** A record of no trigger in particular that could not be read (the Flow triggers' snapshots). */
    void skipped(String type) {
        byType.get(type).skipped().increment();
    }

    /** A trigger that may not run: its settings reach what the operator does not allow (docs/security.md). */
    void refused(FlowTrigger trigger) {
        byType.get(trigger.trigger().type()).refused().increment();
    }

    void restarted(FlowTrigger trigger) {
        restarted(trigger.trigger().type());
    }

    void restarted(String type) {
        byType.get(type).restarts().increment();
    }

    private static Counters counters(MeterRegistry registry, String type, boolean deadLetters) {
        return new Counters(records(registry, type, "started"), records(registry, type, "skipped"),
                deadLetters ? records(registry, type, "dead_lettered") : null,
                Counter.builder("millrace.trigger.restarts")
                        .description("Times a trigger failed (Kafka or a schema registry unreachable, a send that failed) and started again")
                        .tag("type", type)
                        .register(registry),
                Counter.builder("millrace.trigger.refusals")
                        .description("Trigger revisions that did not start: their Kafka settings reach what the"
                                + " operator does not allow (docs/security.md)")
                        .tag("type", type)
                        .register(registry));
    }

    private static Counter records(MeterRegistry registry, String type, String outcome) {
        return Counter.builder("millrace.trigger.records")
                .description("Records and events a trigger handled, by what became of them")
                .tag("type", type)
                .tag("outcome", outcome)
                .register(registry);
    }
}
