package io.millrace.serdes;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A role's Kafka Streams application that recovers by itself: the one failure policy of the executor, the gateway's
 * read model and the triggers' schedules.
 *
 * <ul>
 *   <li>A stream thread that dies is replaced after a pause ({@link ThreadFailures}), counted in
 *       {@code millrace.stream.thread.replacements}.</li>
 *   <li>A client that fails (its global thread died, local state points at offsets the cluster does not have, or it
 *       ended in {@code ERROR} for any other reason) is closed, its local state wiped ({@link KafkaStreams#cleanUp}),
 *       and a fresh client of the same topology starts after a pause, counted in {@code millrace.state.resets}.
 *       Local state is a copy of what Kafka holds: the fresh client restores it from the topics.</li>
 * </ul>
 * Pauses follow the {@link RecoveryPolicy}. Meanwhile the application is not {@link #running()} (readiness) but stays
 * {@link #alive()} (liveness): restarting the process would do no more than this does. Kafka's own metrics of each
 * client are bound to the registry while it runs.
 */
public final class RecoveringStreams implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveringStreams.class);
    private static final Duration CLOSE_FAILED = Duration.ofSeconds(30);
    private static final Duration STOP_RECOVERY = Duration.ofSeconds(30);
    /** How long after a start the global thread is looked for (see {@link StreamsFailures#globalThreadAlive}). */
    private static final Duration GLOBAL_THREAD_CHECK = Duration.ofSeconds(1);

    private final String role;
    private final Supplier<Topology> topologies;
    private final Properties properties;
    private final MeterRegistry registry;
    private final FailureBackoff resets;
    private final Counter resetCount;
    private final ThreadFailures threads;
    /** Closes failed clients and starts fresh ones, one at a time, off Kafka's threads. */
    private final ScheduledExecutorService recovery;
    /** Notified at every state change of the current client. */
    private final Object changes = new Object();
    private volatile KafkaStreams current;
    /** The current client's Kafka metrics; null once unbound. */
    private KafkaMeters.Bound meters;
    private volatile Throwable lastFailure;
    /** From a failure until a fresh client is RUNNING. */
    private volatile boolean recovering;
    /** Clients launched so far: the first, then one a recovery. */
    private volatile int launches;
    private volatile boolean closed;
    /** The last client reset (only on the recovery thread): a client fails once, however many ways it reports it. */
    private KafkaStreams reset;

    private RecoveringStreams(String role, Supplier<Topology> topologies, Properties properties, RecoveryPolicy policy,
            MeterRegistry registry) {
        this.role = role;
        this.topologies = topologies;
        this.properties = properties;
        this.registry = registry;
        this.resets = new FailureBackoff(policy);
        this.resetCount = Counter.builder("millrace.state.resets").tag("role", role)
                .description("Kafka Streams clients of this role that failed, were closed and started again on fresh"
                        + " local state")
                .register(registry);
        Counter replacements = Counter.builder("millrace.stream.thread.replacements").tag("role", role)
                .description("Stream threads of this role that died and were replaced, after a pause")
                .register(registry);
        this.threads = new ThreadFailures(role, policy, replacements, failure -> lastFailure = failure);
        this.recovery = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("millrace-" + role + "-recovery").factory());
    }

    /**
     * Makes a client of a topology and the properties and starts it (with global stores, this returns once they are
     * restored); from then on it recovers as above.
     *
     * @param role what the metrics' {@code role} tag and the log call it: {@code executor}, {@code gateway}, ...
     * @param topologies the same topology each time, built anew for each client
     */
    public static RecoveringStreams start(String role, Supplier<Topology> topologies, Properties properties,
            RecoveryPolicy policy, MeterRegistry registry) {
        var streams = new RecoveringStreams(role, topologies, properties, policy, registry);
        streams.launch();
        return streams;
    }

    /** The current client's state (a failed one's until the fresh one is made). */
    public KafkaStreams.State state() {
        return current.state();
    }

    /** The current client is RUNNING: it serves and its stores can be queried. */
    public boolean running() {
        return current.state() == KafkaStreams.State.RUNNING;
    }

    /** The current client runs or rebalances (restoring state included). */
    public boolean runningOrRebalancing() {
        return current.state().isRunningOrRebalancing();
    }

    /**
     * How many clients were launched: a recovery launches a fresh one, whose stores are read again from their topics
     * (a global store's records then reach it without its processor). Read before a query, it names the client
     * queried, or an earlier one.
     */
    public int launches() {
        return launches;
    }

    /** A client is being rebuilt after a failure: not ready, but getting there by itself. */
    public boolean recovering() {
        return recovering && !closed;
    }

    /** Not closed, and starting, running, rebalancing or recovering: nothing a restart of the process would mend. */
    public boolean alive() {
        KafkaStreams.State state = current.state();
        return !closed && (recovering || state == KafkaStreams.State.CREATED || state.isRunningOrRebalancing());
    }

    /** Waits until the current client is RUNNING; false if the timeout passed first or it was closed. */
    public boolean awaitRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (changes) {
            while (!running() && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(changes, left);
            }
        }
        return running() && !closed;
    }

    /** A store of the current client; throws Kafka's InvalidStateStoreException while it cannot be queried. */
    public <T> T store(StoreQueryParameters<T> parameters) {
        return current.store(parameters);
    }

    private void launch() {
        Topology topology = topologies.get();
        var client = new KafkaStreams(topology, properties);
        client.setStateListener((next, previous) -> changed(client, previous, next));
        client.setUncaughtExceptionHandler(threads);
        bindMeters(client);
        current = client;
        launches++; // after current: whoever reads this count finds the client it counts, or a later one
        try {
            client.start();
        } catch (RuntimeException e) {
            // a global store that could not be restored (its state is gone by now): the client is of no more use
            lastFailure = e;
            failed(client);
            return;
        }
        if (!topology.describe().globalStores().isEmpty()) {
            try {
                recovery.schedule(() -> checkGlobalThread(client), GLOBAL_THREAD_CHECK.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                // closed meanwhile
            }
        }
    }

    /** On the recovery thread: a client whose global thread ended without a word is reset like a failed one. */
    private void checkGlobalThread(KafkaStreams client) {
        if (closed || client != current || !client.state().isRunningOrRebalancing()
                || StreamsFailures.globalThreadAlive(client)) {
            return;
        }
        lastFailure = new IllegalStateException("Expected the global stream thread to run, but it ended while it"
                + " restored the global stores");
        recovering = true;
        reset(client);
    }

    private void changed(KafkaStreams client, KafkaStreams.State previous, KafkaStreams.State next) {
        LOG.info("The {}'s Kafka Streams: {} -> {}", role, previous, next);
        if (client != current) {
            return;
        }
        if (next == KafkaStreams.State.RUNNING) {
            recovering = false;
        } else if (next == KafkaStreams.State.ERROR && !closed) {
            failed(client);
        }
        synchronized (changes) {
            changes.notifyAll();
        }
    }

    /** Called on Kafka's threads: the work is done on the recovery thread. */
    private void failed(KafkaStreams client) {
        recovering = true;
        try {
            recovery.execute(() -> reset(client));
        } catch (RejectedExecutionException closing) {
            // closed meanwhile: nothing to recover
        }
    }

    private void reset(KafkaStreams client) {
        if (closed || client != current || client == reset) {
            return;
        }
        reset = client;
        Duration pause = resets.next(System.nanoTime());
        resetCount.increment();
        LOG.warn("The {}'s Kafka Streams client failed ({}); it is closed, its local state wiped, and a fresh client"
                + " starts in {} ms ({} reset(s) in a row)", role, StreamsFailures.describe(lastFailure),
                pause.toMillis(), resets.inARow());
        unbindMeters();
        // leaving the group at once: the fresh client joins without waiting out the failed one's session
        client.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(CLOSE_FAILED));
        try {
            client.cleanUp();
        } catch (RuntimeException e) {
            LOG.warn("Unable to wipe the {}'s local state; the fresh client starts on it", role, e);
        }
        try {
            recovery.schedule(this::relaunch, pause.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // closed meanwhile
        }
    }

    private synchronized void bindMeters(KafkaStreams client) {
        meters = KafkaMeters.bind(registry,
                refresh -> new KafkaStreamsMetrics(client, List.of(), refresh, KafkaMeters.REFRESH));
    }

    private synchronized void unbindMeters() {
        if (meters != null) {
            meters.close();
            meters = null;
        }
    }

    /** A fresh client; one that cannot even be made (Kafka unreachable, say) is tried again after the next pause. */
    private void relaunch() {
        if (closed) {
            return;
        }
        try {
            launch();
        } catch (RuntimeException e) {
            Duration pause = resets.next(System.nanoTime());
            LOG.warn("Unable to start a fresh Kafka Streams client for the {} ({}); trying again in {} ms", role,
                    StreamsFailures.describe(e), pause.toMillis());
            try {
                recovery.schedule(this::relaunch, pause.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closing) {
                // closed meanwhile
            }
        }
    }

    /** {@link #close(CloseOptions)} with no more than a timeout. */
    public boolean close(Duration timeout) {
        return close(CloseOptions.timeout(timeout));
    }

    /** Stops recovering (a pause or a fresh start under way ends), then closes the current client. */
    public boolean close(CloseOptions options) {
        closed = true;
        threads.close();
        recovery.shutdownNow();
        try {
            if (!recovery.awaitTermination(STOP_RECOVERY.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("The {}'s recovery did not stop within {} s", role, STOP_RECOVERY.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (changes) {
            changes.notifyAll();
        }
        unbindMeters();
        return current.close(options);
    }

    @Override
    public void close() {
        close(CloseOptions.timeout(CLOSE_FAILED));
    }
}
