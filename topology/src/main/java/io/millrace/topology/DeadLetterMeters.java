package io.millrace.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * Counts the executor's dead letters ({@code millrace_executor_dead_letters_total}) by why and by the topic, without
 * its prefix, that the record came from (or, for one Kafka refused, was going to): the processor's and the Kafka
 * Streams exception handlers' alike, so no dead letter goes uncounted.
 */
final class DeadLetterMeters {
    static final String NAME = "millrace.executor.dead.letters";

    /** Why a record went to the dead-letter topic: the values of the {@code reason} tag. */
    enum Reason {
        /** A command or result that decodes but is not one (the processor). */
        UNREADABLE,
        /** Bytes that do not decode at all (the deserialization handler). */
        UNDECODABLE,
        /** A record Kafka refused to write (the production handler). */
        UNWRITABLE,
        /** A command whose step would have gone over a record limit; its execution failed. */
        OVER_LIMIT,
        INVALID_COMMAND,
        INTERNAL_ERROR,
        KILLED_WAITING_FOR_FLOW,
        /** A create killed while it waited for a place to start ({@code max-running-executions}). */
        KILLED_WAITING_TO_START;

        final String tag = name().toLowerCase(Locale.ROOT);
    }

    private final MeterRegistry registry;
    private final String topicPrefix;

    DeadLetterMeters(MeterRegistry registry, String topicPrefix) {
        this.registry = registry;
        this.topicPrefix = topicPrefix;
    }

    /** Every reason for the two topics the executor reads, at 0, so dashboards show 0 rather than no data. */
    DeadLetterMeters registerSources() {
        for (Reason reason : Reason.values()) {
            counter(reason, "commands");
            counter(reason, "results");
        }
        return this;
    }

    /** @param topic the topic's full name, or null when the record came from no topic (a timer, a waiting create) */
    void count(Reason reason, String topic) {
        counter(reason, topic == null ? "none" : topic.startsWith(topicPrefix) ? topic.substring(topicPrefix.length()) : topic)
                .increment();
    }

    private Counter counter(Reason reason, String topic) {
        return Counter.builder(NAME)
                .description("Records the executor sent to the dead-letter topic, by why and by the topic they came from")
                .tag("reason", reason.tag)
                .tag("topic", topic)
                .register(registry);
    }
}
