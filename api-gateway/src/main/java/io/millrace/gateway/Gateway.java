package io.millrace.gateway;

import io.javalin.Javalin;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API gateway role: a REST API (Kestra's paths and JSON) in front of the engine's topics. It
 * produces flow revisions and commands, and answers reads from its own read model, a global-only
 * Kafka Streams application over the flows and executions topics.
 *
 * <p>{@link #start} returns once HTTP listens; {@link #ready()} (and {@code GET /health}) tell when
 * the read model has loaded the topics and requests can be served.
 */
public final class Gateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final Waiters waiters = new Waiters();
    private final ExecutorService responses = Executors.newVirtualThreadPerTaskExecutor();
    private final Publisher publisher;
    private ReadModel readModel;
    private AutoCloseable publisherMetrics;
    private Javalin http;
    private volatile boolean listening;
    private volatile boolean closed;

    private Gateway(MillraceConfig config, MeterRegistry registry) {
        publisher = Publisher.create(config);
        try {
            publisherMetrics = publisher.bindMetrics(registry);
            var overlay = new FlowOverlay();
            readModel = ReadModel.start(config, overlay::caughtUp, waiters::onSnapshot, registry);
            var clock = Clock.systemUTC();
            Topics topics = Topics.of(config);
            var flows = new FlowService(readModel::latestFlow, overlay, publisher, clock,
                    groups -> TopicAdmin.ensure(config, groups.stream().<Topics.Topic<?>>map(topics::tasks).toList()));
            var executions = new ExecutionService(flows, readModel, waiters, publisher, responses, clock);
            http = HttpApi.create(flows, executions, readModel::logs, this::problem, config.waitTimeout(), responses,
                    new GatewayMetrics(registry, waiters));
            http.start(config.port());
            listening = true;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** {@link #start(MillraceConfig, MeterRegistry)} with metrics nobody reads. */
    public static Gateway start(MillraceConfig config) {
        return start(config, new SimpleMeterRegistry());
    }

    /**
     * Creates the flows, commands and executions topics if needed, then starts the gateway.
     *
     * @param registry where the gateway's metrics (requests, waiters, its Kafka clients') go
     */
    public static Gateway start(MillraceConfig config, MeterRegistry registry) {
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.flows(), topics.commands(), topics.executions(), topics.logs()));
        Gateway gateway = new Gateway(config, registry);
        LOG.info("Gateway listening on port {}", gateway.port());
        return gateway;
    }

    /** The port HTTP listens on (a free one when the configured port is 0). */
    public int port() {
        return http.port();
    }

    /** HTTP listens and the read model is RUNNING. */
    public boolean ready() {
        return problem() == null;
    }

    /** Waits until {@link #ready()}; false if the timeout passed first. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return readModel.awaitRunning(timeout) && ready();
    }

    /** Why the gateway cannot serve, or null when it can. */
    private String problem() {
        if (closed) {
            return "The gateway is stopping";
        }
        if (!listening) {
            return "HTTP is not listening yet";
        }
        return readModel.running() ? null : "The read model is " + readModel.state() + ", not RUNNING";
    }

    /** Answers pending waits with 503, then stops HTTP, the read model and the producer. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        waiters.failAll(ApiException.unavailable("The gateway is stopping"));
        if (http != null) {
            http.stop();
        }
        if (readModel != null) {
            readModel.close();
        }
        if (publisherMetrics != null) {
            try {
                publisherMetrics.close();
            } catch (Exception e) {
                LOG.warn("Unable to unbind the producer's metrics", e);
            }
        }
        publisher.close();
        responses.shutdown();
        try {
            responses.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
