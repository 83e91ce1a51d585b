package io.millrace.gateway;

import io.javalin.Javalin;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigException;
import io.millrace.config.MillraceConfig;
import io.millrace.core.expression.Expressions;
import io.millrace.serdes.ExecutionHops;
import io.millrace.serdes.ExecutionMapper;
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

    /** Where an open API (no token configured) listens: this machine only. */
    public static final String LOOPBACK = "127.0.0.1";
    public static final String EVERY_INTERFACE = "0.0.0.0";

    private final Waiters waiters;
    private final ExecutorService responses = Executors.newVirtualThreadPerTaskExecutor();
    private final Publisher publisher;
    private final String host;
    private Admission admission;
    private ReadModel readModel;
    private AutoCloseable publisherMetrics;
    private Javalin http;
    private BearerTokens tokens;
    private volatile boolean listening;
    private volatile boolean closed;

    private Gateway(MillraceConfig config, String host, MeterRegistry registry) {
        this.host = host;
        waiters = new Waiters(config.api().maxWaitRequests(), config.api().maxWebhookWaitRequests());
        publisher = Publisher.create(config);
        try {
            publisherMetrics = publisher.bindMetrics(registry);
            var overlay = new FlowOverlay();
            var clock = Clock.systemUTC();
            var followers = new Followers(waiters,
                    id -> readModel.execution(id).map(snapshot -> ExecutionJson.of(snapshot, clock.instant())), responses,
                    config.waitTimeout());
            var logFollowers = new LogFollowers(waiters, (id, after) -> readModel.logsAfter(id, after),
                    id -> readModel.execution(id).filter(s -> ExecutionMapper.fromRecord(
                            s.execution().getExecution().getState()).isTerminal()).isPresent(),
                    responses, LogFollowers.GRACE);
            readModel = ReadModel.start(config, overlay::caughtUp, (key, snapshot) -> {
                waiters.onSnapshot(key, snapshot);
                followers.onSnapshot(key, snapshot);
                logFollowers.onSnapshot(key);
            }, logFollowers::onLine, registry);
            Topics topics = Topics.of(config);
            var flows = new FlowService(readModel, overlay, publisher, clock,
                    groups -> TopicAdmin.ensure(config, groups.stream().<Topics.Topic<?>>map(topics::tasks).toList()));
            admission = Admission.of(config, registry);
            var executions = new ExecutionService(flows, readModel, waiters, followers, admission, publisher, responses,
                    clock, new Expressions(config.expressionLimits()),
                    new WebhookRates(config.api().webhookRatePerKey(), System::nanoTime), config.secrets(),
                    ExecutionHops.endToRead(registry));
            var audit = Audit.of(config, publisher, clock, registry);
            tokens = new BearerTokens(config.api(), (status, outcome) -> audit.record(Audit.GATEWAY, "token-reload",
                    String.valueOf(config.api().accessFile()), status, outcome), registry);
            http = HttpApi.create(flows, executions, readModel::logs, logFollowers, this::problem, config.waitTimeout(), responses,
                    new GatewayMetrics(registry, waiters), config.api(), tokens, audit);
            http.start(host, config.port());
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
     * The gateway role: refuses to start ({@link ConfigException}) unless tokens are configured ({@code access-file},
     * {@code auth-tokens}, {@code auth-tokens-file}), then requires one on every /api/v1 call and listens on every
     * interface. Creates the flows, commands, executions, logs and audit topics if needed.
     *
     * @param registry where the gateway's metrics (requests, waiters, refused starts, its Kafka clients') go
     */
    public static Gateway start(MillraceConfig config, MeterRegistry registry) {
        if (!config.api().tokensConfigured()) {
            throw new ConfigException("The gateway needs at least one bearer token: set access-file (principals and"
                    + " their grants), auth-tokens (admin tokens, e.g. MILLRACE_AUTH_TOKENS from a Secret) or"
                    + " auth-tokens-file (a file of admin tokens, one a line). Only standalone may run without one,"
                    + " open to this machine alone");
        }
        return start(config, EVERY_INTERFACE, registry);
    }

    /** {@link #startStandalone(MillraceConfig, MeterRegistry)} with metrics nobody reads. */
    public static Gateway startStandalone(MillraceConfig config) {
        return startStandalone(config, new SimpleMeterRegistry());
    }

    /**
     * The gateway as standalone runs it: with tokens configured, as {@link #start}; without, open, but listening on
     * {@value #LOOPBACK} only, so that nothing beyond this machine can call it.
     */
    public static Gateway startStandalone(MillraceConfig config, MeterRegistry registry) {
        return start(config, standaloneHost(config), registry);
    }

    /**
     * Where standalone listens, for its API and its metrics: every interface with tokens configured, else
     * {@value #LOOPBACK} only.
     */
    public static String standaloneHost(MillraceConfig config) {
        return config.api().tokensConfigured() ? EVERY_INTERFACE : LOOPBACK;
    }

    private static Gateway start(MillraceConfig config, String host, MeterRegistry registry) {
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.flows(), topics.commands(), topics.executions(), topics.logs(),
                topics.audit()));
        Gateway gateway = new Gateway(config, host, registry);
        LOG.info("Gateway listening on {}:{}, {}", host, gateway.port(), gateway.localOnly()
                ? "open to this machine only (no bearer token configured)" : "bearer token required under /api/v1");
        return gateway;
    }

    /** Whether the API is open and listens on {@value #LOOPBACK} only (standalone without tokens). */
    public boolean localOnly() {
        return LOOPBACK.equals(host);
    }

    /** The port HTTP listens on (a free one when the configured port is 0). */
    public int port() {
        return http.port();
    }

    /** HTTP listens and the read model is RUNNING. */
    public boolean ready() {
        return problem() == null;
    }

    /**
     * Not stopping, and the read model starting, running or recovering from a failure by itself: nothing a restart
     * of the process would mend ({@code /health/live}).
     */
    public boolean alive() {
        return !closed && readModel != null && readModel.alive();
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

    /** Answers pending waits with 503, then stops HTTP, the read model, the backlog's reading and the producer. Idempotent. */
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
        if (tokens != null) {
            tokens.close();
        }
        if (readModel != null) {
            readModel.close();
        }
        if (admission != null) {
            admission.close();
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
