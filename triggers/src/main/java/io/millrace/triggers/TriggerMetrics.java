package io.millrace.triggers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.core.flow.TriggerTypes;
import java.util.List;

/**
 * What the triggers did, by trigger type (never by flow, so the tags stay few): records turned into executions,
 * unreadable records skipped or dead-lettered, and restarts after a failure. Every series exists at 0 from the start,
 * so a dashboard shows an idle trigger role as 0, not as no data.
 */
final class TriggerMetrics {
    private static final List<String> KAFKA = List.of(TriggerTypes.KAFKA_REALTIME, TriggerTypes.KAFKA_BATCH);

    private final MeterRegistry registry;

    TriggerMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (String type : KAFKA) {
            for (String outcome : List.of("started", "skipped", "dead_lettered")) {
                counter(outcome, type);
            }
            restarts(type);
        }
        counter("started", TriggerTypes.FLOW);
        counter("skipped", TriggerTypes.FLOW);
        restarts(TriggerTypes.FLOW);
    }

    void read(FlowTrigger trigger, int started, int unreadable, boolean deadLettered) {
        if (started > 0) {
            counter("started", trigger).increment(started);
        }
        if (unreadable > 0) {
            counter(deadLettered ? "dead_lettered" : "skipped", trigger).increment(unreadable);
        }
    }

    /** A record of no trigger in particular that could not be read (the Flow triggers' snapshots). */
    void skipped(String type) {
        counter("skipped", type).increment();
    }

    void restarted(FlowTrigger trigger) {
        restarted(trigger.trigger().type());
    }

    void restarted(String type) {
        restarts(type).increment();
    }

    private Counter restarts(String type) {
        return Counter.builder("millrace.trigger.restarts")
                .description("Times a trigger failed (Kafka or a schema registry unreachable, a send that failed) and started again")
                .tag("type", type)
                .register(registry);
    }

    private Counter counter(String outcome, FlowTrigger trigger) {
        return counter(outcome, trigger.trigger().type());
    }

    private Counter counter(String outcome, String type) {
        return Counter.builder("millrace.trigger.records")
                .description("Records and events a trigger handled, by what became of them")
                .tag("type", type)
                .tag("outcome", outcome)
                .register(registry);
    }
}
