package io.millrace.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the read model could not decode, on their way in or when a request read them: each is counted by the store
 * it was meant for ({@code millrace.gateway.undecodable}), logged in one line with its key, and skipped. A bad record
 * costs the one execution, flow or log line it carried, never the read model.
 */
final class Undecodable {
    private static final Logger LOG = LoggerFactory.getLogger(Undecodable.class);

    /** What the record was: the values of the {@code store} tag. */
    enum Kind {
        FLOWS, EXECUTIONS, RUNS, INDEX, LOGS;

        final String tag = name().toLowerCase(Locale.ROOT);
    }

    private final Map<Kind, Counter> counters = new EnumMap<>(Kind.class);

    Undecodable(MeterRegistry registry) {
        for (Kind kind : Kind.values()) {
            counters.put(kind, Counter.builder("millrace.gateway.undecodable").tag("store", kind.tag)
                    .description("Records of the gateway's read model that did not decode, skipped, by store")
                    .register(registry));
        }
    }

    /** Counts and logs one record that did not decode. */
    void skipped(Kind kind, String key, Exception failure) {
        counters.get(kind).increment();
        LOG.warn("Skipping an undecodable {} record, key {}: {}", kind.tag, key, failure.getMessage());
    }
}
