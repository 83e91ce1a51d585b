package io.millrace.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.core.command.Command;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Rejection;
import java.util.HashMap;
import java.util.Map;

/** The executor's own counters; Kafka Streams' metrics come on top. */
final class ExecutorMetrics {
    private final MeterRegistry registry;
    private final Counter deadLetters;
    private final Counter events;
    /** Looked up once per command type: finding a meter by name and tags on every record costs more than counting. */
    private final Map<Class<?>, Counter> commands = new HashMap<>();

    ExecutorMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.deadLetters = registry.counter("millrace.executor.dead.letters");
        this.events = registry.counter("millrace.executor.events");
    }

    void handled(Command command, Decision decision) {
        commands.computeIfAbsent(command.getClass(),
                type -> registry.counter("millrace.executor.commands", "type", type.getSimpleName())).increment();
        events.increment(decision.events().size());
    }

    void rejected(Rejection rejection) {
        registry.counter("millrace.executor.rejections", "kind", rejection.kind().name()).increment();
    }

    void reemitted() {
        registry.counter("millrace.executor.reemitted").increment();
    }

    /** Ending an execution asked Kafka Streams for a commit at once (see {@link EagerCommits}). */
    void eagerCommit() {
        registry.counter("millrace.executor.eager.commits").increment();
    }

    void deadLettered() {
        deadLetters.increment();
    }
}
