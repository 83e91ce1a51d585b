package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.json.JavalinJackson;
import io.millrace.config.ApiAccess;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * answers 500 with an error id that the log has beside the stack trace. With bearer tokens configured, every call
 * under /api/v1 but a webhook's needs {@code Authorization: Bearer <token>} (else 401). Bodies, headers and waiters
 * are bounded ({@link ApiAccess}: 413, 431, 429), and starts are refused while the executor is behind
 * ({@link Admission}: 503 with {@code Retry-After}).
 *
 * <pre>
 * GET  /health                                   200 {"status":"UP"} | 503
 * POST /api/v1/flows                  (YAML)     200 {namespace,id,revision} | 400
 * GET  /api/v1/flows/{namespace}/{id}            200 {namespace,id,revision,source} | 404
 * DELETE /api/v1/flows/{namespace}/{id}          204 | 404   (a revision that deletes it; its triggers stop)
 * POST /api/v1/executions/{id}/kill              202   (DELETE too, as Kestra; ?isOnKillCascade=false)
 * POST /api/v1/executions/{id}/pause             204 | 404 | 409 (not RUNNING)
 * POST /api/v1/executions/{id}/resume            204 | 400 (onResume inputs) | 404 | 409 (not PAUSED)
 *                                                (body {"inputs": {...}}, or a form with one field an input)
 * POST /api/v1/executions/{namespace}/{flowId}   200 | 202 (wait timed out) | 400 | 404 | 409 (flow disabled)
 *                                                | 429 (waiters) | 503 (executor backlog)
 * GET|POST|PUT /api/v1/executions/webhook/{namespace}/{flowId}/{key}
 *                                                200 | 202 | 404 (flow or key) | 409 | 422 (inputs did not render)
 *                                                | 429 | 503
 * GET  /api/v1/executions/search                200 {results, total} | 400   (see ExecutionSearch)
 * GET  /api/v1/executions/{id}                   200 | 404
 * GET  /api/v1/executions/{id}/follow            server-sent events: the execution (id: start), on every change
 *                                                (id: progress), until it ends; unknown for wait-timeout: error
 *                                                | 406 (without Accept: text/event-stream)
 * GET  /api/v1/logs/{executionId}                200 [entries] | 400   (see LogJson; /download as text)
 * </pre>
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
    /** A webhook's path up to its key, and the key. */
    private static final Pattern WEBHOOK_KEY = Pattern.compile("^(/api/v1/executions/webhook/[^/]+/[^/]+/)[^/]+");
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
            LogFollowers logFollowers, Supplier<String> problem, Duration defaultWait, Executor executor, GatewayMetrics metrics, ApiAccess access) {
        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.requestLogger.http(metrics::answered);
            config.startupWatcherEnabled = false;
            config.jsonMapper(new JavalinJackson(Json.MAPPER, false));
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

        var tokens = new BearerTokens(access.authTokens());
        if (!tokens.isEmpty()) {
            // Every /api/v1 call, routed or not, but a webhook's, which its key authenticates.
            app.before("/api/v1/*", ctx -> {
                if (!WEBHOOK.matcher(ctx.path()).matches() && !tokens.accepts(ctx.header("Authorization"))) {
                    throw ApiException.unauthorized();
                }
            });
        }

        app.get("/health", ctx -> {
            String why = problem.get();
            if (why == null) {
                ctx.json(Json.MAPPER.createObjectNode().put("status", "UP"));
            } else {
                ctx.status(503).json(Json.MAPPER.createObjectNode().put("status", "DOWN").put("message", why));
            }
        });

        app.post("/api/v1/flows", ctx -> {
            FlowService.Deployed deployed = flows.deploy(ctx.body());
            ctx.json(Json.MAPPER.createObjectNode()
                    .put("namespace", deployed.namespace()).put("id", deployed.id()).put("revision", deployed.revision()));
        });
        app.delete("/api/v1/flows/{namespace}/{id}", ctx -> {
            flows.delete(ctx.pathParam("namespace"), ctx.pathParam("id"));
            ctx.status(204);
        });
        app.get("/api/v1/flows/{namespace}/{id}", ctx -> {
            String namespace = ctx.pathParam("namespace");
            String id = ctx.pathParam("id");
            FlowRecord flow = flows.latest(namespace, id)
                    .orElseThrow(() -> ApiException.notFound("Flow '" + namespace + "/" + id + "' not found"));
            ctx.json(Json.MAPPER.createObjectNode().put("namespace", flow.getNamespace()).put("id", flow.getId())
                    .put("revision", flow.getRevision()).put("source", flow.getSource()));
        });

        for (var method : List.of(io.javalin.http.HandlerType.GET, io.javalin.http.HandlerType.POST,
                io.javalin.http.HandlerType.PUT)) {
            app.addHttpHandler(method, "/api/v1/executions/webhook/{namespace}/{flowId}/{key}", ctx -> answer(ctx,
                    executions.webhook(ctx.pathParam("namespace"), ctx.pathParam("flowId"), ctx.pathParam("key"),
                            webhookCall(ctx), defaultWait), executor));
        }
        // Before the start route, which would otherwise read ".../{id}/kill" as namespace {id}, flow "kill".
        app.post("/api/v1/executions/{id}/kill", ctx -> answer(ctx, executions.kill(ctx.pathParam("id"), cascade(ctx)),
                executor));
        app.delete("/api/v1/executions/{id}/kill", ctx -> answer(ctx, executions.kill(ctx.pathParam("id"), cascade(ctx)),
                executor));
        app.post("/api/v1/executions/{id}/pause", ctx -> answer(ctx, executions.pause(ctx.pathParam("id")), executor));
        app.post("/api/v1/executions/{id}/restart", ctx -> answer(ctx, executions.restart(ctx.pathParam("id")), executor));
        app.post("/api/v1/executions/{id}/replay", ctx -> answer(ctx,
                executions.replay(ctx.pathParam("id"), ctx.queryParam("taskRunId"), ctx.queryParam("revision")),
                executor));
        app.post("/api/v1/executions/{id}/resume", ctx -> answer(ctx,
                executions.resume(ctx.pathParam("id"), resumeInputs(ctx)), executor));
        app.post("/api/v1/executions/{namespace}/{flowId}", ctx -> {
            var request = ExecutionRequest.parse(ctx.body());
            Optional<Duration> wait = ExecutionRequest.wait(ctx.queryParam("wait"))
                    ? Optional.of(ExecutionRequest.timeout(ctx.queryParam("timeout"), defaultWait))
                    : Optional.empty();
            answer(ctx, executions.start(ctx.pathParam("namespace"), ctx.pathParam("flowId"), request, wait), executor);
        });
        // before the read of one execution, which would otherwise take "search" for an execution id
        app.get("/api/v1/executions/search", ctx -> ctx.json(executions.search(ExecutionSearch.parse(ctx.queryParamMap()))));
        app.get("/api/v1/executions/{id}", ctx -> ctx.json(executions.get(ctx.pathParam("id"))));
        app.before("/api/v1/executions/{id}/follow", HttpApi::eventStreamOnly);
        app.sse("/api/v1/executions/{id}/follow", client -> executions.follow(client.ctx().pathParam("id"), client));
        app.get("/api/v1/logs/{executionId}", ctx -> ctx.json(LogJson.json(logs(ctx, logs))));
        app.before("/api/v1/logs/{executionId}/follow", HttpApi::eventStreamOnly);
        app.sse("/api/v1/logs/{executionId}/follow", client -> logFollowers.follow(client.ctx().pathParam("executionId"),
                filter(client.ctx()), client));
        app.get("/api/v1/logs/{executionId}/download", ctx -> ctx.contentType("text/plain; charset=utf-8")
                .result(LogJson.text(logs(ctx, logs))));

        // Javalin's own answers: unknown routes (404), oversized bodies, ...; their messages are Javalin's, never an exception's
        app.exception(HttpResponseException.class, (e, ctx) -> error(ctx, e.getStatus(), e.getMessage(), List.of()));
        app.exception(Exception.class, (e, ctx) -> failed(ctx, e));
        return app;
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

    private static List<LogRecord> logs(Context ctx, Function<String, List<LogRecord>> logs) {
        return logs.apply(ctx.pathParam("executionId")).stream().filter(filter(ctx)).toList();
    }

    /** The lines a logs request asks for: {@code minLevel}, {@code taskRunId}, {@code taskId}, {@code attempt}. */
    private static Predicate<LogRecord> filter(Context ctx) {
        return LogJson.filter(ctx.queryParam("minLevel"), ctx.queryParam("taskRunId"), ctx.queryParam("taskId"),
                ctx.queryParam("attempt"));
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
}
