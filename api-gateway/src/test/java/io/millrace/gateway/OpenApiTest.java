package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ApiAccess;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The API's OpenAPI document (openapi.yaml): a valid document, describing every route {@link HttpApi} registers and
 * no other, served without a token. The routes are read from the Javalin app itself, built with tokens and a CORS
 * origin so that every route it may register is there; no broker is needed, as no call reaches a service.
 */
class OpenApiTest {
    private static final String TOKEN = "t0ken-" + UUID.randomUUID();
    /** Routes that are no part of the API: the redirect to the UI, and the CORS preflight of every path. */
    private static final Set<Route> NOT_API = Set.of(new Route("GET", "/"), new Route("OPTIONS", "/*"));

    private static BearerTokens tokens;
    private static Javalin app;

    /** One operation: the HTTP method and the path template, with its parameters as {@code {name}}. */
    private record Route(String method, String path) implements Comparable<Route> {
        @Override
        public int compareTo(Route other) {
            return toString().compareTo(other.toString());
        }

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    @BeforeAll
    static void startApi() {
        var access = new ApiAccess(List.of(TOKEN), null, 1 << 20, 8192, 1, 0, Duration.ZERO, List.of(),
                List.of("https://ui.example.com"), 1, 0);
        tokens = new BearerTokens(access, (status, outcome) -> { }, new SimpleMeterRegistry());
        app = HttpApi.create(null, null, executionId -> List.of(), null, () -> null, Duration.ofSeconds(1),
                Runnable::run, new GatewayMetrics(new SimpleMeterRegistry(), new Waiters(1)), access, tokens, null);
        app.start("127.0.0.1", 0);
    }

    @AfterAll
    static void stopApi() {
        app.stop();
        tokens.close();
    }

    @Test
    void shouldBeAValidOpenApiDocument() {
        // when
        SwaggerParseResult parsed = parse();

        // then
        assertThat(parsed.getMessages()).isEmpty();
        assertThat(parsed.getOpenAPI().getOpenapi()).isEqualTo("3.0.3");
        assertThat(parsed.getOpenAPI().getInfo().getTitle()).isEqualTo("Millrace");
    }

    @Test
    void shouldDescribeEveryRouteAndNoOther() {
        // given
        Set<Route> routes = routes(app);
        Set<Route> documented = operations(parse().getOpenAPI());

        // then
        assertThat(routes).contains(new Route("GET", "/api/v1/executions/{id}"), new Route("GET", "/api/openapi.yaml"));
        assertThat(without(routes, documented)).as("routes HttpApi registers that openapi.yaml does not describe")
                .isEmpty();
        assertThat(without(documented, routes)).as("operations openapi.yaml describes that HttpApi does not register")
                .isEmpty();
    }

    @Test
    void shouldServeTheDocumentWithoutAToken() {
        // given
        var api = new Api(app.port());

        // when
        Api.Answer document = api.get("/api/openapi.yaml");
        Api.Answer me = api.get("/api/v1/me");

        // then
        assertThat(document.status()).isEqualTo(200);
        assertThat(document.contentType()).isEqualTo("application/yaml");
        assertThat(document.body()).isEqualTo(resource());
        assertThat(me.status()).as("the API itself needs a token").isEqualTo(401);
    }

    @Test
    void shouldServeTheUisFilesAndItsEditorsWithoutATokenUnderTheirSecurityHeaders() {
        // given
        var api = new Api(app.port());

        // when
        Api.Answer page = api.get("/ui/index.html");
        Api.Answer editor = api.get("/ui/vendor/codemirror/lib/codemirror.js");
        Api.Answer yaml = api.get("/ui/vendor/codemirror/mode/yaml/yaml.js");
        Api.Answer demo = api.get("/ui/vendor/codemirror/mode/yaml/index.html");

        // then: the page and the editor's library and mode, but none of the WebJar's demo pages
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("vendor/codemirror/lib/codemirror.js", "vendor/codemirror/mode/yaml/yaml.js");
        assertThat(editor.status()).isEqualTo(200);
        assertThat(editor.body()).contains("CodeMirror");
        assertThat(yaml.status()).isEqualTo(200);
        assertThat(demo.status()).isEqualTo(404);
        assertThat(api.header("/ui/vendor/codemirror/lib/codemirror.js", "Content-Security-Policy"))
                .contains("default-src 'self'");
        assertThat(api.header("/ui/app.js", "X-Content-Type-Options")).contains("nosniff");
    }

    /**
     * The HTTP routes of the app, as Javalin holds them: its before and after handlers left out, and the routes
     * that are no part of the API ({@link #NOT_API}); the UI's files are no route. A path parameter Javalin writes
     * {@code <name>} (one that may hold slashes) is written {@code {name}}, as OpenAPI writes every one.
     */
    private static Set<Route> routes(Javalin app) {
        return app.unsafeConfig().pvt.internalRouter.allHttpHandlers().stream()
                .map(handler -> handler.getEndpoint())
                .filter(endpoint -> endpoint.getMethod().isHttpMethod())
                .map(endpoint -> new Route(endpoint.getMethod().name(),
                        endpoint.getPath().replaceAll("<([^>]+)>", "{$1}")))
                .filter(route -> !NOT_API.contains(route))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<Route> operations(OpenAPI document) {
        var operations = new TreeSet<Route>();
        document.getPaths().forEach((path, item) ->
                item.readOperationsMap().keySet().forEach(method -> operations.add(new Route(method.name(), path))));
        return operations;
    }

    private static Set<Route> without(Set<Route> all, Set<Route> left) {
        var rest = new TreeSet<>(all);
        rest.removeAll(left);
        return rest;
    }

    private static SwaggerParseResult parse() {
        var options = new ParseOptions();
        options.setResolve(true);
        return new OpenAPIV3Parser().readContents(resource(), null, options);
    }

    private static String resource() {
        try (InputStream in = OpenApiTest.class.getResourceAsStream("/openapi.yaml")) {
            assertThat(in).as("openapi.yaml on the class path").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
