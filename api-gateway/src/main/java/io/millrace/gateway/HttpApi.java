package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.NotFoundResponse;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;
import io.millrace.config.ApiAccess;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.eclipse.jetty.servlet.FilterHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The REST API on Javalin. Every answer is JSON; every error carries a {@code message} (and
 * {@code details} when there are several problems), never a stack trace or an exception's text: an unexpected failure
 * answers 500 with an error id that the log has beside the stack trace. With tokens configured, every call under
 * /api/v1 but a webhook's needs {@code Authorization: Bearer <token>} (else 401), and the token's principal the role
 * the call needs on the namespace it reaches ({@link Role}; else 403 naming the grant): searches and log streams hold
 * only what it may see. Every change is written to the audit trail ({@link Audit}). Bodies, headers and waiters
 * are bounded ({@link ApiAccess}: 413, 431, 429), and starts are refused while the executor is behind
 * ({@link Admission}: 503 with {@code Retry-After}). A write ({@code POST}, {@code PUT}) but a webhook's declares JSON
 * or YAML ({@link WriteTypes}: else 415); an open API answers this machine's pages alone ({@link LocalOnly}: else 403);
 * {@code cors-allowed-origins} lets the pages of other origins call it. The web UI's files (docs/ui.md) are served
 * under /ui/, without a token: the UI calls this API as any client does.
 *
 * <pre>
 * GET  /ui/...                                   the web UI (/ redirects to /ui/)
 * GET  /api/openapi.yaml                         200 this API's OpenAPI document (application/yaml; no token needed)
 * GET  /health                                   200 {"status":"UP"} | 503
 * POST /api/v1/flows                  (YAML)     200 {namespace,id,revision} | 400
 * POST /api/v1/flows/validate         (YAML)     200 [{index,namespace,flow,constraints}]   (nothing stored)
 * GET  /api/v1/flows/{namespace}/{id}?revision=  200 {namespace,id,revision,disabled,inputs,triggers,pauses,source}
 *                                                | 404   (the latest revision without ?revision)
 * GET  /api/v1/flows/{namespace}/{id}/revisions 200 [as above, with deleted; oldest first, the newest 100] | 404
 * GET  /api/v1/flows/{namespace}/{id}/graph?revision=  200 {id,type:"flow",namespace,revision,branches:[{name,
 *                                                parallel,tasks:[{id,type,disabled,branches}]}]} | 404   (FlowGraph)
 * GET  /api/v1/flows/search?namespace=&page=&size=  200 {results: [as above], total}   (the namespaces one may see)
 * DELETE /api/v1/flows/{namespace}/{id}          204 | 404   (a revision that deletes it; its triggers stop)
 * POST /api/v1/executions/{id}/kill              202   (DELETE too, as Kestra; ?isOnKillCascade=false)
 * POST /api/v1/executions/{id}/pause             204 | 404 | 409 (not RUNNING)
 * POST /api/v1/executions/{id}/resume            204 | 400 (onResume inputs) | 404 | 409 (not PAUSED)
 *                                                (body {"inputs": {...}}, or a form with one field an input)
 * POST /api/v1/executions/{namespace}/{flowId}   200 | 202 (wait timed out) | 400 | 404 | 409 (flow disabled)
 *                                                | 429 (waiters) | 503 (executor backlog)
 * GET|POST|PUT /api/v1/executions/webhook/{namespace}/{flowId}/{key}
 *                                                200 | 202 | 404 (flow, its state or the key: one answer)
 *                                                | 422 (inputs did not render) | 429 (rate, waiters) | 503
 * GET  /api/v1/executions/search                200 {results, total, counts by state} | 400   (see ExecutionSearch)
 * GET  /api/v1/executions/{id}                   200 | 404
 * GET  /api/v1/stats/executions?hours=3&namespace=  200 {from, to, minutes: [{minute, counts, p50, p95}], failing,
 *                                                truncated}   (see ExecutionStats; the namespaces one may see)
 * GET  /api/v1/executions/{id}/follow            server-sent events: the execution (id: start), on every change
 *                                                (id: progress), until it ends; unknown for wait-timeout: error
 *                                                | 406 (without Accept: text/event-stream)
 * GET  /api/v1/logs/{executionId}                200 [entries] | 400   (see LogJson; /download as text)
 * GET  /api/v1/me                              200 {name, grants: [{namespace, role}]}   (the caller; any token)
 * GET  /api/v1/audit?limit=100                   200 {results: [the latest records, newest first]}   (admin of *)
 * </pre>
 * Roles needed: viewer for every read, runner to start and to act on an execution, editor to deploy or delete a flow.
 */
final class HttpApi {
    /** Kestra's {@code isOnKillCascade}: whether a kill reaches the subflows too; true unless told otherwise. */
    private static boolean cascade(Context ctx) {
        String value = ctx.queryParam("isOnKillCascade");
        if (value == null || value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw ApiException.badRequest("Expected isOnKillCascade to be true or false, but got '" + value + "'");
    }

    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    private static final String CALLER = "millrace.caller";
    private static final String ACTION = "millrace.action";
    private static final String TARGET = "millrace.target";
    /** Who calls an open API (standalone without tokens, on this machine only): an admin of every namespace. */
    private static final Principal OPEN = Principal.everywhere("anonymous", Role.ADMIN);
    /** A webhook's path up to its key, and the key. */
    private static final Pattern WEBHOOK_KEY = Pattern.compile("^(/api/v1/executions/webhook/[^/]+/[^/]+/)[^/]+");
    /** The resume route, which takes Kestra's form too. */
    private static final Pattern RESUME = Pattern.compile("/api/v1/executions/[^/]+/resume");
    private static final Pattern EDITOR_FILES = Pattern.compile("/ui/vendor/codemirror/(lib|mode/yaml)/[\\w.-]+\\.(js|css)");
    private static final Map<String, String> UI_HEADERS = Map.of("Cache-Control", "no-cache",
            "X-Content-Type-Options", "nosniff",
            "Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'");
    /** The CodeMirror WebJar's version, as its Maven properties say (the pom is the one place it is written). */
    private static final String CODEMIRROR_VERSION = webJarVersion("codemirror");
    /** This API's OpenAPI document, read once from the jar; a test keeps it and the routes below the same. */
    private static final String OPENAPI = resource("/openapi.yaml");
    /** The webhook route exactly: three segments, none of them a dot segment. */
    private static final Pattern WEBHOOK =
            Pattern.compile("/api/v1/executions/webhook/(?!\\.{1,2}/)[^/]+/(?!\\.{1,2}/)[^/]+/(?!\\.{1,2}$)[^/]+");

    private HttpApi() {
    }

    /**
     * @param problem why the gateway is not ready, or null when it is
     * @param defaultWait how long {@code ?wait=true} waits without {@code ?timeout}
     * @param executor where asynchronous answers are written
     * @param metrics told of every answered request
     * @param access the bearer tokens required under /api/v1 (none: open) and the bounds of a request
     */
    static Javalin create(FlowService flows, ExecutionService executions, Function<String, List<LogRecord>> logs,
            LogFollowers logFollowers, Supplier<String> problem, Duration defaultWait, Executor executor, GatewayMetrics metrics, ApiAccess access,
            BearerTokens tokens, Audit audit) {
        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.requestLogger.http((ctx, ms) -> {
                metrics.answered(ctx, ms);
                audited(ctx, audit);
            });
            config.startupWatcherEnabled = false;
            config.jsonMapper(new JavalinJackson(Json.MAPPER, false));
            // The UI: files of the jar, no build step, calling the API as any client does (no token needed to load it)
            config.staticFiles.add(files -> {
                files.hostedPath = "/ui";
                files.directory = "/ui";
                files.location = Location.CLASSPATH;
                files.headers = UI_HEADERS;
            });
            // its editor, CodeMirror, from its WebJar (the library and its YAML mode: see EDITOR_FILES)
            config.staticFiles.add(files -> {
                files.hostedPath = "/ui/vendor/codemirror";
                files.directory = "/META-INF/resources/webjars/codemirror/" + CODEMIRROR_VERSION;
                files.location = Location.CLASSPATH;
                files.headers = UI_HEADERS;
            });
            // No servlet timeout: every asynchronous answer ends by itself (wait timeout, producer timeouts).
            config.http.asyncTimeout = 0;
            config.http.maxRequestSize = access.maxRequestBytes();
            config.jetty.modifyHttpConfiguration(http -> {
                http.setRequestHeaderSize(access.maxRequestHeaderBytes());
                http.setSendServerVersion(false);
            });
            config.jetty.modifyServer(server -> server.setErrorHandler(new JettyErrors(access.maxRequestHeaderBytes())));
            config.jetty.modifyServletContextHandler(context -> {
                context.setErrorHandler(new JettyErrors(access.maxRequestHeaderBytes()));
                context.addFilter(new FilterHolder(new BodyLimit(access.maxRequestBytes())), "/*",
                        EnumSet.of(DispatcherType.REQUEST));
            });
        });

        // An open API answers this machine's pages alone, whatever the path (LocalOnly).
        if (!access.tokensConfigured()) {
            var local = new LocalOnly(access);
            app.before(ctx -> local.check(ctx.header("Host"), ctx.header("Origin")));
        }
        boolean cors = !access.corsAllowedOrigins().isEmpty();
        if (cors) {
            var rules = new Cors(access.corsAllowedOrigins());
            app.before(rules::headers);
            app.options("/*", rules::preflight);
        }
        // Every /api/v1 call, routed or not, but a webhook's, which its key authenticates, and a CORS preflight.
        app.before("/api/v1/*", ctx -> {
            boolean webhook = WEBHOOK.matcher(ctx.path()).matches();
            if (cors && ctx.method() == io.javalin.http.HandlerType.OPTIONS) {
                return;
            }
            if (!webhook) {
                ctx.attribute(CALLER, tokens.isEmpty() ? OPEN
                        : tokens.principal(ctx.header("Authorization")).orElseThrow(ApiException::unauthorized));
            }
            if (!webhook && (ctx.method() == io.javalin.http.HandlerType.POST
                    || ctx.method() == io.javalin.http.HandlerType.PUT)) {
                WriteTypes.require(ctx.header("Content-Type"), RESUME.matcher(ctx.path()).matches());
            }
        });

        // of the editor's WebJar, the files the UI loads, not its demo pages
        app.before("/ui/vendor/codemirror/*", ctx -> {
            if (!EDITOR_FILES.matcher(ctx.path()).matches()) {
                throw new NotFoundResponse();
            }
        });
        app.get("/", ctx -> ctx.redirect("/ui/"));
        app.get("/api/openapi.yaml", ctx -> ctx.contentType("application/yaml").result(OPENAPI));
        app.get("/health", ctx -> {
            String why = problem.get();
            if (why == null) {
                ctx.json(Json.MAPPER.createObjectNode().put("status", "UP"));
            } else {
                ctx.status(503).json(Json.MAPPER.createObjectNode().put("status", "DOWN").put("message", why));
            }
        });

        app.post("/api/v1/flows", ctx -> {
            changes(ctx, "deploy", "");
            FlowService.Deployed deployed = flows.deploy(ctx.body(), flow -> {
                changes(ctx, "deploy", flow.key());
                caller(ctx).require(Role.EDITOR, flow.namespace(), "to deploy a flow");
            });
            ctx.json(Json.MAPPER.createObjectNode()
                    .put("namespace", deployed.namespace()).put("id", deployed.id()).put("revision", deployed.revision()));
        });
        // any principal may validate: nothing is stored, and the answer tells only of the YAML it sent
        app.post("/api/v1/flows/validate", ctx -> ctx.json(flows.validate(ctx.body())));
        app.delete("/api/v1/flows/{namespace}/{id}", ctx -> {
            changes(ctx, "delete", ctx.pathParam("namespace") + "/" + ctx.pathParam("id"));
            caller(ctx).require(Role.EDITOR, ctx.pathParam("namespace"), "to delete a flow");
            flows.delete(ctx.pathParam("namespace"), ctx.pathParam("id"));
            ctx.status(204);
        });
        app.get("/api/v1/flows/{namespace}/{id}", ctx -> ctx.json(flows.describe(flow(ctx, flows, "to read a flow"))));
        app.get("/api/v1/flows/{namespace}/{id}/graph", ctx ->
                ctx.json(flows.graph(flow(ctx, flows, "to read a flow's graph"))));
        app.get("/api/v1/flows/{namespace}/{id}/revisions", ctx -> {
            caller(ctx).require(Role.VIEWER, ctx.pathParam("namespace"), "to read a flow");
            ctx.json(flows.revisions(ctx.pathParam("namespace"), ctx.pathParam("id")));
        });
        app.get("/api/v1/flows/search", ctx -> ctx.json(flows.search(ctx.queryParam("namespace"),
                namespace -> caller(ctx).may(Role.VIEWER, namespace),
                ExecutionSearch.number(ctx.queryParamMap(), "page", 1, 1, Integer.MAX_VALUE),
                ExecutionSearch.number(ctx.queryParamMap(), "size", 25, 1, ExecutionSearch.MAX_SIZE))));

        for (var method : List.of(io.javalin.http.HandlerType.GET, io.javalin.http.HandlerType.POST,
                io.javalin.http.HandlerType.PUT)) {
            app.addHttpHandler(method, "/api/v1/executions/webhook/{namespace}/{flowId}/{key}", ctx -> {
                changes(ctx, "start", ctx.pathParam("namespace") + "/" + ctx.pathParam("flowId"));
                answer(ctx, executions.webhook(ctx.pathParam("namespace"), ctx.pathParam("flowId"),
                        ctx.pathParam("key"), webhookCall(ctx), defaultWait), executor);
            });
        }
        // Before the start route, which would otherwise read ".../{id}/kill" as namespace {id}, flow "kill".
        for (var method : List.of(io.javalin.http.HandlerType.POST, io.javalin.http.HandlerType.DELETE)) {
            app.addHttpHandler(method, "/api/v1/executions/{id}/kill", ctx -> answer(ctx,
                    executions.kill(runs(ctx, executions, "kill"), cascade(ctx)), executor));
        }
        app.post("/api/v1/executions/{id}/pause", ctx -> answer(ctx,
                executions.pause(runs(ctx, executions, "pause")), executor));
        app.post("/api/v1/executions/{id}/restart", ctx -> answer(ctx,
                executions.restart(runs(ctx, executions, "restart")), executor));
        app.post("/api/v1/executions/{id}/replay", ctx -> answer(ctx, executions.replay(runs(ctx, executions, "replay"),
                ctx.queryParam("taskRunId"), ctx.queryParam("revision")), executor));
        app.post("/api/v1/executions/{id}/resume", ctx -> answer(ctx,
                executions.resume(runs(ctx, executions, "resume"), resumeInputs(ctx)), executor));
        app.post("/api/v1/executions/{namespace}/{flowId}", ctx -> {
            changes(ctx, "start", ctx.pathParam("namespace") + "/" + ctx.pathParam("flowId"));
            caller(ctx).require(Role.RUNNER, ctx.pathParam("namespace"), "to start an execution");
            var request = ExecutionRequest.parse(ctx.body());
            Optional<Duration> wait = ExecutionRequest.wait(ctx.queryParam("wait"))
                    ? Optional.of(ExecutionRequest.timeout(ctx.queryParam("timeout"), defaultWait))
                    : Optional.empty();
            answer(ctx, executions.start(ctx.pathParam("namespace"), ctx.pathParam("flowId"), request, wait), executor);
        });
        // before the read of one execution, which would otherwise take "search" for an execution id
        app.get("/api/v1/executions/search", ctx -> ctx.json(executions.search(ExecutionSearch.parse(ctx.queryParamMap(),
                namespace -> caller(ctx).may(Role.VIEWER, namespace), Instant.now()))));
        app.get("/api/v1/stats/executions", ctx -> ctx.json(executions.stats(
                ExecutionSearch.number(ctx.queryParamMap(), "hours", 3, 1, ExecutionStats.MAX_HOURS),
                ctx.queryParam("namespace"), namespace -> caller(ctx).may(Role.VIEWER, namespace))));
        app.get("/api/v1/executions/{id}", ctx -> {
            ObjectNode execution = executions.get(ctx.pathParam("id"));
            caller(ctx).require(Role.VIEWER, execution.path("namespace").asText(), "to read this execution");
            ctx.json(execution);
        });
        app.before("/api/v1/executions/{id}/follow", HttpApi::eventStreamOnly);
        app.sse("/api/v1/executions/{id}/follow", client -> executions.follow(client.ctx().pathParam("id"), client,
                namespace -> caller(client.ctx()).may(Role.VIEWER, namespace)));
        app.get("/api/v1/logs/{executionId}", ctx -> ctx.json(LogJson.json(logs(ctx, logs, executions))));
        app.before("/api/v1/logs/{executionId}/follow", ctx -> {
            eventStreamOnly(ctx);
            filter(ctx); // a bad filter is a 400 before the stream answers 200
        });
        app.sse("/api/v1/logs/{executionId}/follow", client -> logFollowers.follow(client.ctx().pathParam("executionId"),
                filter(client.ctx()), client));
        app.get("/api/v1/logs/{executionId}/download", ctx -> ctx.contentType("text/plain; charset=utf-8")
                .result(LogJson.text(logs(ctx, logs, executions))));
        app.get("/api/v1/me", ctx -> {
            Principal caller = caller(ctx);
            ObjectNode body = Json.MAPPER.createObjectNode().put("name", caller.name());
            ArrayNode grants = body.putArray("grants");
            caller.grants().forEach(grant -> grants.addObject().put("namespace", grant.prefix()).put("role", grant.role().label()));
            ctx.json(body);
        });
        app.get("/api/v1/audit", ctx -> {
            caller(ctx).requireEverywhere(Role.ADMIN, "to read the audit trail");
            int limit = ExecutionSearch.number(ctx.queryParamMap(), "limit", 100, 1, Audit.MAX_READ);
            ObjectNode body = Json.MAPPER.createObjectNode();
            audit.latest(limit).forEach(body.putArray("results")::add);
            ctx.json(body);
        });

        // Javalin's own answers: unknown routes (404), oversized bodies, ...; their messages are Javalin's, never an exception's
        app.exception(HttpResponseException.class, (e, ctx) -> error(ctx, e.getStatus(), e.getMessage(), List.of()));
        app.exception(Exception.class, (e, ctx) -> failed(ctx, e));
        return app;
    }

    /**
     * The flow revision a read asks for: {@code ?revision=}, else the latest; 404 when there is none, 403 when the
     * caller may not view its namespace.
     */
    private static FlowRecord flow(Context ctx, FlowService flows, String why) {
        String namespace = ctx.pathParam("namespace");
        String id = ctx.pathParam("id");
        caller(ctx).require(Role.VIEWER, namespace, why);
        String revision = ctx.queryParam("revision");
        return (revision == null ? flows.latest(namespace, id) : flows.revision(namespace, id,
                ExecutionSearch.number(ctx.queryParamMap(), "revision", 1, 1, Integer.MAX_VALUE)))
                .orElseThrow(() -> ApiException.notFound("Flow '" + namespace + "/" + id + "'"
                        + (revision == null ? "" : " revision " + revision) + " not found"));
    }

    /** A resume's inputs: a JSON body {@code {"inputs": {...}}}, or a form (Kestra's multipart) with one field an input. */
    private static Map<String, Object> resumeInputs(Context ctx) {
        String type = ctx.contentType() == null ? "" : ctx.contentType().toLowerCase(Locale.ROOT);
        if (type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded")) {
            var inputs = new LinkedHashMap<String, Object>();
            ctx.formParamMap().forEach((name, values) -> inputs.put(name, values.size() == 1 ? values.getFirst() : values));
            return inputs;
        }
        var request = ExecutionRequest.parse(ctx.body());
        if (!request.labels().isEmpty()) {
            throw ApiException.badRequest("Expected only inputs to resume an execution with, but labels were given");
        }
        return request.inputs();
    }

    private static WebhookCall webhookCall(Context ctx) {
        var headers = new java.util.LinkedHashMap<String, List<String>>();
        for (String name : java.util.Collections.list(ctx.req().getHeaderNames())) {
            headers.put(name, java.util.Collections.list(ctx.req().getHeaders(name)));
        }
        return new WebhookCall(ctx.body(), headers, Map.copyOf(ctx.queryParamMap()));
    }

    /** An execution's lines, 403 when the caller may not see its namespace. */
    private static List<LogRecord> logs(Context ctx, Function<String, List<LogRecord>> logs, ExecutionService executions) {
        String executionId = ctx.pathParam("executionId");
        executions.namespaceOf(executionId)
                .ifPresent(namespace -> caller(ctx).require(Role.VIEWER, namespace, "to read this execution's logs"));
        return logs.apply(executionId).stream().filter(filter(ctx)).toList();
    }

    /**
     * The lines a logs request asks for: {@code minLevel}, {@code taskRunId}, {@code taskId}, {@code attempt}; of the
     * namespaces the caller may see only.
     */
    private static Predicate<LogRecord> filter(Context ctx) {
        Principal caller = caller(ctx);
        return LogJson.filter(ctx.queryParam("minLevel"), ctx.queryParam("taskRunId"), ctx.queryParam("taskId"),
                ctx.queryParam("attempt")).and(line -> caller.may(Role.VIEWER, line.getNamespace()));
    }

    /** Who calls: set for every /api/v1 call but a webhook's. */
    private static Principal caller(Context ctx) {
        Principal caller = ctx.attribute(CALLER);
        if (caller == null) {
            throw new IllegalStateException("No principal for " + ctx.path());
        }
        return caller;
    }

    /**
     * The execution id of a call that acts on an execution, once the caller is known to hold the runner role on its
     * namespace. An execution the read model does not know yet is acted on only by a runner of every namespace; for
     * the others it is not found.
     */
    private static String runs(Context ctx, ExecutionService executions, String action) {
        String executionId = ctx.pathParam("id");
        changes(ctx, action, executionId);
        Principal caller = caller(ctx);
        Optional<String> namespace = executions.namespaceOf(executionId);
        if (namespace.isPresent()) {
            caller.require(Role.RUNNER, namespace.get(), "to " + action + " an execution");
        } else if (!caller.mayEverywhere(Role.RUNNER)) {
            throw ApiException.notFound("Execution '" + executionId + "' not found");
        }
        return executionId;
    }

    /** Marks the call as a change, for the audit trail. */
    private static void changes(Context ctx, String action, String target) {
        ctx.attribute(ACTION, action);
        ctx.attribute(TARGET, target);
    }

    /** Writes the audit record of a call that changes something, once answered. */
    private static void audited(Context ctx, Audit audit) {
        String action = ctx.attribute(ACTION);
        if (action != null) {
            Principal caller = ctx.attribute(CALLER);
            int status = ctx.statusCode();
            audit.record(caller == null ? "webhook" : caller.name(), action, ctx.attribute(TARGET), status,
                    status < 400 ? "done" : status < 500 ? "refused" : "failed");
        }
    }

    /** A follow is server-sent events: 406 for a request that does not accept them. */
    private static void eventStreamOnly(Context ctx) {
        if (!"text/event-stream".equals(ctx.header("Accept"))) {
            throw new ApiException(406, "Expected the header Accept: text/event-stream (a follow is server-sent"
                    + " events), but got " + ctx.header("Accept"), List.of());
        }
    }

    /** Writes an asynchronous answer, or the error it failed with, without holding a server thread meanwhile. */
    private static void answer(Context ctx, CompletableFuture<ExecutionService.Reply> reply, Executor executor) {
        ctx.future(() -> reply.handleAsync((ok, failure) -> {
            if (failure == null && ok.body() == null) {
                ctx.status(ok.status());
            } else if (failure == null) {
                ctx.status(ok.status()).json(ok.body());
            } else {
                failed(ctx, failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
            }
            return null;
        }, executor));
    }

    /**
     * The answer to a failure: an {@link ApiException}'s own status and message; anything else a generic message with
     * an error id, logged with the failure, so that no exception's text or stack trace reaches the caller.
     */
    private static void failed(Context ctx, Throwable failure) {
        switch (failure) {
            case ApiException e -> {
                if (e.status() == 401) {
                    ctx.header("WWW-Authenticate", "Bearer");
                }
                if (e.retryAfterSeconds() > 0) {
                    ctx.header("Retry-After", Integer.toString(e.retryAfterSeconds()));
                }
                error(ctx, e.status(), e.getMessage(), e.details());
            }
            case org.apache.kafka.common.KafkaException e -> {
                String id = ErrorIds.log(LOG, "Kafka did not accept a command on " + ctx.method() + " " + loggedPath(ctx.path()), e);
                ctx.header("Retry-After", "5");
                error(ctx, 503, "Kafka did not accept the command; retry shortly (error id " + id + ")", List.of());
            }
            default -> {
                String id = ErrorIds.log(LOG, "Unexpected failure on " + ctx.method() + " " + loggedPath(ctx.path()), failure);
                error(ctx, 500, "Internal error; the gateway's log has the details under error id " + id, List.of());
            }
        }
    }

    /** The path as logged: a webhook's key is a secret, and stays out of the log. */
    static String loggedPath(String path) {
        return WEBHOOK_KEY.matcher(path).replaceFirst("$1***");
    }

    static void error(Context ctx, int status, String message, List<String> details) {
        ObjectNode body = Json.MAPPER.createObjectNode().put("message", message);
        if (!details.isEmpty()) {
            details.forEach(body.putArray("details")::add);
        }
        ctx.status(status).json(body);
    }

    private static String resource(String path) {
        try (var in = HttpApi.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String webJarVersion(String artifact) {
        String path = "/META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties";
        try (var in = HttpApi.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the class path");
            }
            var properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
