package io.millrace.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.CommandBacklog;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Admission of new executions: while the executor has more commands to read than {@code max-executor-backlog}, a start
 * (REST or webhook) is refused with 503 and {@code Retry-After}, before anything is produced, as Zeebe answers
 * {@code RESOURCE_EXHAUSTED}. Reads, kills and flows are never refused.
 *
 * <p>Why the creates: Kafka Streams reads the oldest record first, so creates queued on {@code commands} are read
 * before the worker results that came after them. Unbounded, past the executor's ceiling, it starts every queued
 * execution before it finishes one and its completions all but stop; bounded, at most the limit's creates are ahead of
 * a result, completions keep their pace, and an admitted execution waits about its executor steps times the limit over
 * the completion rate (docs/BENCHMARKS.md, "Admission at the gateway").
 *
 * <p>The count is {@link CommandBacklog}'s: the executor's lag, read every 250 ms, plus this gateway's creates sent
 * since, so a burst between two reads is refused too. While the lag cannot be read, starts are admitted.
 *
 * <p>A count bounds the wait only in proportion to how fast the executor goes, which the machine decides: 2,000
 * commands are a few seconds on 2 cores and a fraction of one on 16. So a start is also refused when the backlog would
 * take the executor longer than {@code max-executor-delay} to start, at the rate it started commands when it was last
 * busy ({@link CommandBacklog#busyStartRate}): what it starts when it has more than it can take, while its rate at
 * other times says only what came in. A backlog of at most {@link CommandBacklog#BUSY_BACKLOG} commands, and any
 * backlog of an executor never seen busy, are judged by the count alone.
 */
final class Admission implements AutoCloseable {
    /** What a caller turned away is told to wait before trying again. */
    static final int RETRY_AFTER_SECONDS = 1;
    static final String REASON_BACKLOG = "executor_backlog";
    static final String REASON_DELAY = "executor_delay";

    private final long limit;
    private final Duration maxDelay;
    /** Null when admission is off (no limit and no delay): then nothing is read. */
    private final CommandBacklog backlog;
    private final Counter refused;
    private final Counter delayed;

    /**
     * @param limit {@code max-executor-backlog}; 0: no bound on the count
     * @param maxDelay {@code max-executor-delay}; zero: no bound on the delay
     * @param backlog the executor's backlog, closed with this; null exactly when there is neither bound
     */
    Admission(long limit, Duration maxDelay, CommandBacklog backlog, MeterRegistry registry) {
        if ((limit > 0 || !maxDelay.isZero()) != (backlog != null)) {
            throw new IllegalArgumentException("Expected a backlog to read exactly when there is a bound, but the limit is "
                    + limit + ", the delay " + maxDelay + " and the backlog " + backlog);
        }
        this.limit = limit;
        this.maxDelay = maxDelay;
        this.backlog = backlog;
        this.refused = refusals(registry, REASON_BACKLOG, "the executor had more commands to read than"
                + " max-executor-backlog");
        this.delayed = refusals(registry, REASON_DELAY, "the executor would have started them later than"
                + " max-executor-delay");
        Gauge.builder("millrace.gateway.executor.backlog", this, Admission::commands)
                .description("Commands the executor has yet to read, as the gateway last counted them (NaN: not read)")
                .register(registry);
    }

    private static Counter refusals(MeterRegistry registry, String reason, String why) {
        return Counter.builder("millrace.gateway.starts.refused")
                .description("Starts refused with 503 because " + why)
                .tag("reason", reason)
                .register(registry);
    }

    /**
     * Admission by {@code max-executor-backlog} and {@code max-executor-delay}, reading the executor's backlog in a
     * thread of its own unless both are off.
     */
    static Admission of(MillraceConfig config, MeterRegistry registry) {
        long limit = config.api().maxExecutorBacklog();
        Duration maxDelay = config.api().maxExecutorDelay();
        return new Admission(limit, maxDelay, limit == 0 && maxDelay.isZero() ? null
                : CommandBacklog.watch(config, "millrace-gateway-backlog", "starts are admitted"), registry);
    }

    /** @throws ApiException 503 with {@code Retry-After} while the executor's backlog is over a bound */
    void admit() {
        if (backlog == null) {
            return;
        }
        long commands = backlog.commands().orElse(0);
        if (limit > 0 && commands > limit) {
            refused.increment();
            throw ApiException.unavailable("The executor has " + commands + " commands to read, more than"
                    + " max-executor-backlog (" + limit + "); retry later", RETRY_AFTER_SECONDS);
        }
        OptionalDouble seconds = backlog.secondsToStartLaterThan(commands, maxDelay);
        if (seconds.isPresent()) {
            delayed.increment();
            throw ApiException.unavailable(String.format(Locale.ROOT, "The executor would start this execution in about"
                    + " %.1f s (%d commands ahead, at the %.0f a second it started when last busy), later"
                    + " than max-executor-delay (%s); retry later", seconds.getAsDouble(), commands,
                    commands / seconds.getAsDouble(), maxDelay), RETRY_AFTER_SECONDS);
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
