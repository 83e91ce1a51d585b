package io.millrace.triggers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the triggers did, by trigger type (never by flow, so the tags stay few): records turned into executions,
 * unreadable records skipped or dead-lettered, and restarts after a failure.
 */
final class TriggerMetrics {
    private final MeterRegistry registry;

    TriggerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void read(FlowTrigger trigger, int started, int unreadable, boolean deadLettered) {
        if (started > 0) {
            counter("started", trigger).increment(started);
        }
        if (unreadable > 0) {
            counter(deadLettered ? "dead_lettered" : "skipped", trigger).increment(unreadable);
        }
    }

    void restarted(FlowTrigger trigger) {
        Counter.builder("millrace.trigger.restarts")
                .description("Times a trigger failed (Kafka or a schema registry unreachable, a send that failed) and started again")
                .tag("type", trigger.trigger().type())
                .register(registry).increment();
    }

    private Counter counter(String outcome, FlowTrigger trigger) {
        return Counter.builder("millrace.trigger.records")
                .description("Records and events a trigger handled, by what became of them")
                .tag("type", trigger.trigger().type())
                .tag("outcome", outcome)
                .register(registry);
    }
}
