package io.millrace.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.CommandBacklog;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Admission of new executions: while the executor has more commands to read than {@code max-executor-backlog}, a start
 * (REST or webhook) is refused with 503 and {@code Retry-After}, before anything is produced. Past the executor's
 * ceiling every accepted start would only wait longer behind the others, and clients that give up leave work the engine
 * still does; refusing the excess keeps what is accepted at a bounded latency and the gateway answering, as Zeebe's
 * {@code RESOURCE_EXHAUSTED} does. Reads, kills and flows are never refused.
 *
 * <p>The count is {@link CommandBacklog}'s: the executor's lag, read every 250 ms, plus this gateway's creates sent
 * since, so a burst between two reads is refused too. While the lag cannot be read, starts are admitted.
 */
final class Admission implements AutoCloseable {
    /** What a caller turned away is told to wait before trying again. */
    static final int RETRY_AFTER_SECONDS = 1;
    static final String REASON_BACKLOG = "executor_backlog";

    private final long limit;
    /** Null when admission is off ({@code max-executor-backlog} 0): then nothing is read. */
    private final CommandBacklog backlog;
    private final Counter refused;

    /**
     * @param limit {@code max-executor-backlog}; 0 admits every start
     * @param backlog the executor's backlog, closed with this; null exactly when {@code limit} is 0
     */
    Admission(long limit, CommandBacklog backlog, MeterRegistry registry) {
        if ((limit > 0) != (backlog != null)) {
            throw new IllegalArgumentException("Expected a backlog to read exactly when there is a limit, but the limit is "
                    + limit + " and the backlog " + backlog);
        }
        this.limit = limit;
        this.backlog = backlog;
        this.refused = Counter.builder("millrace.gateway.starts.refused")
                .description("Starts refused with 503 because the executor had more commands to read than"
                        + " max-executor-backlog")
                .tag("reason", REASON_BACKLOG)
                .register(registry);
        Gauge.builder("millrace.gateway.executor.backlog", this, Admission::commands)
                .description("Commands the executor has yet to read, as the gateway last counted them (NaN: not read)")
                .register(registry);
    }

    /** Admission by {@code max-executor-backlog}, reading the executor's backlog in a thread of its own unless 0. */
    static Admission of(MillraceConfig config, MeterRegistry registry) {
        long limit = config.api().maxExecutorBacklog();
        return new Admission(limit, limit == 0 ? null
                : CommandBacklog.watch(config, "millrace-gateway-backlog", "starts are admitted"), registry);
    }

    /** @throws ApiException 503 with {@code Retry-After} while the executor's backlog is over the limit */
    void admit() {
        if (backlog == null) {
            return;
        }
        long commands = backlog.commands().orElse(0);
        if (commands > limit) {
            refused.increment();
            throw ApiException.unavailable("The executor has " + commands + " commands to read, more than"
                    + " max-executor-backlog (" + limit + "); retry later", RETRY_AFTER_SECONDS);
        }
    }

    /** Sends an admitted create, counting it in the backlog until Kafka has answered. */
    CompletableFuture<Void> publish(Supplier<CompletableFuture<Void>> send) {
        if (backlog == null) {
            return send.get();
        }
        backlog.sent(1);
        CompletableFuture<Void> acked;
        try {
            acked = send.get();
        } catch (RuntimeException e) {
            backlog.settled(1);
            throw e;
        }
        return acked.whenComplete((ok, failure) -> backlog.settled(1));
    }

    /** The backlog as last counted; NaN when admission is off or the backlog cannot be read. */
    private double commands() {
        if (backlog == null) {
            return Double.NaN;
        }
        var commands = backlog.commands();
        return commands.isPresent() ? commands.getAsLong() : Double.NaN;
    }

    @Override
    public void close() {
        if (backlog != null) {
            backlog.close();
        }
    }
}
