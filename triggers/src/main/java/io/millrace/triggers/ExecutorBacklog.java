package io.millrace.triggers;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.CommandBacklog;
import java.time.Duration;

/**
 * The triggers' pace: while the executor has more commands to read than {@code trigger-executor-backlog} (0: no limit),
 * as {@link CommandBacklog} counts them (this role's creates on their way included), or would take longer than
 * {@code trigger-executor-delay} to start them, Kafka triggers pause their partitions, so a backlog of events drains at
 * the executor's pace instead of queueing thousands of creates ahead of a REST start on the same topic. Both bounds
 * sit below the gateway's, so a REST start is still admitted while triggers drain. While the backlog cannot be read,
 * triggers are not held back.
 */
final class ExecutorBacklog implements AutoCloseable, KafkaTrigger.Pace {
    static final Duration EVERY = CommandBacklog.EVERY;

    private final CommandBacklog backlog;
    private final long limit;
    private final Duration maxDelay;

    ExecutorBacklog(MillraceConfig config) {
        this.limit = config.triggerExecutorBacklog();
        this.maxDelay = config.triggerExecutorDelay();
        this.backlog = CommandBacklog.watch(config, "millrace-triggers-backlog", "triggers are not held back");
    }

    /** True while the executor has more commands to read than the limit, or would start them later than the delay. */
    @Override
    public boolean full() {
        long commands = backlog.commands().orElse(0);
        return limit > 0 && commands > limit || backlog.laterThan(commands, maxDelay);
    }

    @Override
    public void sent(int creates) {
        backlog.sent(creates);
    }

    @Override
    public void settled(int creates) {
        backlog.settled(creates);
    }

    @Override
    public void close() {
        backlog.close();
    }
}
