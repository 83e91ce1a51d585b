package io.millrace.gateway;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's requests, by method, route and status, and its {@code ?wait} waiters. The route is the path the
 * request matched as declared ({@code /api/v1/executions/{id}}), never the concrete path with its ids: the tags stay
 * as few as the routes. A request that matched no route counts under {@code unmatched}.
 */
final class GatewayMetrics {
    static final String UNMATCHED = "unmatched";
    private static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(30), Duration.ofMinutes(1)};

    private final MeterRegistry registry;
    /** By method, route and status, so a request finds its timer without building a key. */
    private final Map<String, Map<String, Map<Integer, Timer>>> requests = new ConcurrentHashMap<>();

    GatewayMetrics(MeterRegistry registry, Waiters waiters) {
        this.registry = registry;
        Gauge.builder("millrace.gateway.waiters", waiters, Waiters::size)
                .description("Requests waiting for an execution to end (?wait=true, webhook waits)")
                .register(registry);
    }

    /** The route as declared; {@link #UNMATCHED} when no endpoint handled the request (Javalin's own 404). */
    private static String route(Context ctx) {
        if (ctx.handlerType() == HandlerType.BEFORE) {
            return UNMATCHED; // no endpoint ran: Javalin refuses to tell an endpoint path here
        }
        String route = ctx.endpointHandlerPath();
        return route == null || route.isEmpty() ? UNMATCHED : route;
    }

    /** Called once a request was answered (Javalin's request logger), with how long it took. */
    void answered(Context ctx, float millis) {
        String route = route(ctx);
        String method = ctx.method().name();
        int status = ctx.statusCode();
        var byStatus = requests.computeIfAbsent(method, m -> new ConcurrentHashMap<>())
                .computeIfAbsent(route, r -> new ConcurrentHashMap<>());
        Timer timer = byStatus.get(status);
        if (timer == null) {
            // the first request of its kind only: the lambda captures, so it is not made for every request
            timer = byStatus.computeIfAbsent(status, s -> Timer.builder("millrace.gateway.requests")
                    .description("Requests the REST API answered, by method, route (as declared) and status")
                    .tags("method", method, "route", route, "status", Integer.toString(s))
                    .serviceLevelObjectives(BUCKETS)
                    .register(registry));
        }
        timer.record((long) (millis * 1_000_000L), TimeUnit.NANOSECONDS);
    }
}
