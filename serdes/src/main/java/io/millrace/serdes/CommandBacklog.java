package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commands the executor has not read yet, or read and not started, as one process counts them: {@link CommandLag},
 * read every {@link #EVERY}, plus the creates this process sent since that Kafka did not have when the read began (so a
 * burst between two reads counts at once). The triggers pace their reading by it and the gateway admits starts by it:
 * both the same count, each against its own limit.
 *
 * <p>A read that fails keeps the last count; once the lag could not be read for {@link #BLIND_AFTER}, the count is
 * unknown ({@link #commands()} empty) until a read succeeds again, and whoever uses it lets everything through: a
 * backlog that cannot be seen (an admin client without rights to describe the executor's group, a broker that does
 * not answer) must not stop the engine. That is logged once, and so is the first read that succeeds again.
 */
public final class CommandBacklog implements AutoCloseable {
    public static final Duration EVERY = Duration.ofMillis(250);
    public static final Duration BLIND_AFTER = Duration.ofSeconds(30);
    /** The span over which a start rate is measured. */
    public static final Duration RATE_SPAN = Duration.ofSeconds(1);
    /** More unstarted commands than this, and the executor is busy: it starts what it can, not what comes. */
    public static final long BUSY_BACKLOG = 100;
    private static final Logger LOG = LoggerFactory.getLogger(CommandBacklog.class);

    /** One reading of the executor's lag on the commands topic. */
    public interface Lag extends AutoCloseable {
        /** Commands the executor has not started. */
        long read() throws Exception;

        /** How many commands the executor has started, all partitions together, as of the last read; -1: unknown. */
        default long started() {
            return -1;
        }

        @Override
        default void close() {
        }
    }

    private final Lag lag;
    private final LongSupplier nanoTime;
    private final String whenBlind;
    /** Creates sent, and of those the ones settled (in Kafka, or failed), since the start. */
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong settled = new AtomicLong();
    /** The last read, published whole so that a reader never adds one read's count to another's settled creates. */
    private volatile Reading last = new Reading(0, 0);
    private volatile boolean blind;
    private volatile boolean closed;
    /** The executor's positions since its backlog last was not busy, read by the reading thread only. */
    private final ArrayDeque<Position> busyPositions = new ArrayDeque<>();
    private volatile double busyRate;
    /** When reads began to fail; read and written by the reading thread only. */
    private long failingSince;
    private boolean failing;
    private Thread thread;

    /**
     * A backlog read only when {@link #refresh()} is called; {@link #watch} reads it in a thread of its own.
     *
     * @param whenBlind what the owner does while the count is unknown, for the log ("starts are admitted")
     */
    public CommandBacklog(Lag lag, LongSupplier nanoTime, String whenBlind) {
        this.lag = lag;
        this.nanoTime = nanoTime;
        this.whenBlind = whenBlind;
    }

    /**
     * The executor's backlog on the cluster {@code config} names, read every {@link #EVERY} by a daemon thread named
     * {@code threadName} until {@link #close()}.
     */
    public static CommandBacklog watch(MillraceConfig config, String threadName, String whenBlind) {
        var backlog = new CommandBacklog(new CommandLag(config), System::nanoTime, whenBlind);
        backlog.thread = Thread.ofPlatform().daemon().name(threadName).start(backlog::readEvery);
        return backlog;
    }

    /** Commands the executor has yet to read, this process's creates on their way included; empty while unknown. */
    public OptionalLong commands() {
        Reading reading = last;
        return blind ? OptionalLong.empty()
                : OptionalLong.of(Math.max(0, reading.waiting() + sent.get() - reading.counted()));
    }

    /**
     * Commands a second the executor started over the last {@link #RATE_SPAN} through which its backlog stayed above
     * {@link #BUSY_BACKLOG}: what it can start when it has more than it takes, whether it is busy now or was last. Its
     * rate at other times says only how much came in. Empty until it was first seen busy for a span.
     */
    public OptionalDouble busyStartRate() {
        double rate = busyRate;
        return blind || rate <= 0 ? OptionalDouble.empty() : OptionalDouble.of(rate);
    }

    /**
     * How long the executor would take to start {@code commands} commands at its {@link #busyStartRate}: empty for at
     * most {@link #BUSY_BACKLOG} (a burst, not a backlog) and while that rate is not known.
     */
    public OptionalDouble secondsToStart(long commands) {
        OptionalDouble rate = busyStartRate();
        return commands <= BUSY_BACKLOG || rate.isEmpty() ? OptionalDouble.empty()
                : OptionalDouble.of(commands / rate.getAsDouble());
    }

    /** Whether starting {@code commands} commands would take the executor longer than {@code delay} (zero: never). */
    public boolean laterThan(long commands, Duration delay) {
        return secondsToStartLaterThan(commands, delay).isPresent();
    }

    /**
     * How long the executor would take to start {@code commands} commands, when that is longer than {@code delay};
     * empty when it is not, when it is not known, and when {@code delay} is zero (no bound).
     */
    public OptionalDouble secondsToStartLaterThan(long commands, Duration delay) {
        OptionalDouble seconds = delay.isZero() ? OptionalDouble.empty() : secondsToStart(commands);
        return seconds.isPresent() && seconds.getAsDouble() * 1000 > delay.toMillis() ? seconds : OptionalDouble.empty();
    }

    /** Creates handed to a producer: they count until {@link #settled} and the next read that began after. */
    public void sent(int creates) {
        sent.addAndGet(creates);
    }

    /** Creates Kafka acknowledged, or whose send failed (a failed one is read again and sent again later, or never). */
    public void settled(int creates) {
        settled.addAndGet(creates);
    }

    /** Reads the lag once; on failure keeps the last count, until {@link #BLIND_AFTER} of failures. */
    public void refresh() {
        try {
            long before = settled.get();
            long waiting = lag.read();
            last = new Reading(waiting, before);
            rememberPosition(nanoTime.getAsLong(), lag.started(), waiting);
            failing = false;
            if (blind) {
                LOG.info("The executor's backlog is read again");
                blind = false;
            }
        } catch (Exception e) {
            if (closed) {
                return;
            }
            long now = nanoTime.getAsLong();
            if (!failing) {
                failing = true;
                failingSince = now;
            }
            if (!blind && now - failingSince >= BLIND_AFTER.toNanos()) {
                LOG.warn("The executor's backlog could not be read for {}; {} until it can: {}", BLIND_AFTER, whenBlind,
                        e.toString());
                blind = true;
            }
            LOG.debug("The executor's backlog could not be read: {}", e.toString());
        }
    }

    /** Remembers where the executor was while busy, and how fast it started commands over the last busy span. */
    private void rememberPosition(long now, long started, long unstarted) {
        if (started < 0 || unstarted <= BUSY_BACKLOG) {
            busyPositions.clear(); // not busy: a span starts again at the next busy reading
            return;
        }
        if (!busyPositions.isEmpty() && started < busyPositions.peekLast().started()) {
            busyPositions.clear(); // its offsets went back (a new group): what it did before says nothing
        }
        busyPositions.addLast(new Position(now, started));
        Position spanStart = null;
        for (Position position : busyPositions) {
            if (now - position.at() >= RATE_SPAN.toNanos()) {
                spanStart = position; // the latest reading at least a span before this one
            }
        }
        if (spanStart != null) {
            busyRate = (started - spanStart.started()) * 1e9 / (now - spanStart.at());
        }
        while (now - busyPositions.peekFirst().at() > RATE_SPAN.toNanos() * 2) {
            busyPositions.removeFirst();
        }
    }

    private void readEvery() {
        while (!closed) {
            refresh();
            try {
                Thread.sleep(EVERY);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private record Position(long at, long started) {
    }

    /** Commands unread at a read, and the creates settled before it began (which it counted). */
    private record Reading(long waiting, long counted) {
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
        }
        lag.close();
    }
}
