package io.millrace.app;

import static io.millrace.app.BearerCalls.sha256;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.app.BearerCalls.Answer;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two teams on one engine, each with its own token and grants from an access file: what each may do and see, the
 * refusals naming the missing grant, the audit trail an admin reads, and the file changed while the engine runs.
 */
class AccessEndToEndTest {
    private static final String TEAM_A = "team-a-" + UUID.randomUUID();
    private static final String TEAM_B = "team-b-" + UUID.randomUUID();
    private static final String OPS = "ops-" + UUID.randomUUID();

    @TempDir
    static Path dir;

    private static Path accessFile;
    private static Engine engine;
    private static String api;

    @BeforeAll
    static void start() throws Exception {
        accessFile = dir.resolve("access.yaml");
        Files.writeString(accessFile, access("company.team-b: runner"));
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("access", dir.resolve("state"),
                "port", "0", "access-file", accessFile.toString()), null);
        engine = Engine.start(config);
        api = "http://localhost:" + engine.port() + "/api/v1";
        assertThat(call("POST", "/flows", OPS, flow("company.team-b")).status()).isEqualTo(200);
    }

    @AfterAll
    static void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void shouldLetEachTeamDoWhatItsGrantsAllowAndRefuseTheRestNamingTheGrant() throws Exception {
        // when: team A deploys and runs in its namespace, and tries team B's
        Answer deployed = call("POST", "/flows", TEAM_A, flow("company.team-a"));
        Answer elsewhere = call("POST", "/flows", TEAM_A, flow("company.team-b.etl"));
        Answer ranA = call("POST", "/executions/company.team-a/hello?wait=true&timeout=PT60S", TEAM_A, "{}");
        Answer ranB = call("POST", "/executions/company.team-b/hello?wait=true&timeout=PT60S", TEAM_B, "{}");
        String executionB = ranB.json().path("id").asText();

        // then
        assertThat(deployed.status()).isEqualTo(200);
        assertThat(elsewhere.status()).isEqualTo(403);
        assertThat(elsewhere.json().path("message").asText()).isEqualTo("Principal 'team-a' has no editor grant on"
                + " namespace 'company.team-b.etl', needed to deploy a flow");
        assertThat(ranA.json().at("/state/current").asText()).isEqualTo("SUCCESS");
        assertThat(ranB.json().at("/state/current").asText()).isEqualTo("SUCCESS");
        // team B is a viewer of team A's namespace: it reads, it does not run
        assertThat(call("GET", "/flows/company.team-a/hello", TEAM_B, null).status()).isEqualTo(200);
        assertThat(call("POST", "/executions/company.team-a/hello", TEAM_B, "{}").json().path("message").asText())
                .isEqualTo("Principal 'team-b' has no runner grant on namespace 'company.team-a', needed to start an"
                        + " execution");
        // team A sees nothing of team B's
        assertThat(call("GET", "/flows/company.team-b/hello", TEAM_A, null).status()).isEqualTo(403);
        assertThat(call("GET", "/executions/" + executionB, TEAM_A, null).status()).isEqualTo(403);
        assertThat(call("GET", "/logs/" + executionB, TEAM_A, null).status()).isEqualTo(403);
        assertThat(call("POST", "/executions/" + executionB + "/kill", TEAM_A, null).json().path("message").asText())
                .isEqualTo("Principal 'team-a' has no runner grant on namespace 'company.team-b', needed to kill an"
                        + " execution");
        assertThat(call("POST", "/executions/" + UUID.randomUUID() + "/kill", TEAM_A, null).status()).isEqualTo(404);
        assertThat(call("DELETE", "/flows/company.team-b/hello", TEAM_B, null).status()).isEqualTo(403);
        Answer followed = call("GET", "/executions/" + executionB + "/follow", TEAM_A, null,
                "Accept", "text/event-stream");
        assertThat(followed.body()).contains("event: error").contains("no viewer grant")
                .doesNotContain("\"company.team-b\"");
        // searches hold, and count, only what the caller may see
        JsonNode searchA = call("GET", "/executions/search?size=100", TEAM_A, null).json();
        assertThat(namespaces(searchA)).isNotEmpty().allMatch(ns -> ns.equals("company.team-a"));
        assertThat(searchA.path("total").asInt()).isEqualTo(searchA.path("results").size());
        assertThat(call("GET", "/executions/search?namespace=company.team-b", TEAM_A, null).json().path("total")
                .asInt()).isZero();
        assertThat(namespaces(call("GET", "/executions/search?size=100", TEAM_B, null).json()))
                .contains("company.team-a", "company.team-b");
    }

    @Test
    void shouldAuditEveryChangeWithItsPrincipalForAdminsOnly() throws Exception {
        // given
        call("POST", "/flows", TEAM_A, flow("company.team-a"));
        call("POST", "/flows", TEAM_A, flow("company.elsewhere"));
        call("POST", "/executions/company.team-b/hello", TEAM_B, "{}");

        // when
        Answer refused = call("GET", "/audit", TEAM_A, null);

        // then
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.json().path("message").asText()).isEqualTo("Principal 'team-a' has no admin grant on every"
                + " namespace (*), needed to read the audit trail");
        awaitAudit(entry -> entry.path("principal").asText().equals("team-a")
                && entry.path("action").asText().equals("deploy")
                && entry.path("target").asText().equals("company.team-a/hello") && entry.path("status").asInt() == 200);
        awaitAudit(entry -> entry.path("principal").asText().equals("team-a")
                && entry.path("target").asText().equals("company.elsewhere/hello")
                && entry.path("status").asInt() == 403 && entry.path("outcome").asText().equals("refused"));
        awaitAudit(entry -> entry.path("principal").asText().equals("team-b")
                && entry.path("action").asText().equals("start")
                && entry.path("target").asText().equals("company.team-b/hello") && entry.path("time").isTextual());
    }

    @Test
    void shouldApplyAChangedAccessFileAndKeepTheLastGoodOneWhenTheNextIsBroken() throws Exception {
        // given: team B may not deploy
        assertThat(call("POST", "/flows", TEAM_B, flow("company.team-b.new")).status()).isEqualTo(403);

        // when: the file grants it editor, then is broken
        Files.writeString(accessFile, access("company.team-b: editor"));
        awaitStatus(() -> call("POST", "/flows", TEAM_B, flow("company.team-b.new")).status(), 200);
        Files.writeString(accessFile, access("company.team-b: owner"));
        awaitAudit(entry -> entry.path("action").asText().equals("token-reload") && entry.path("status").asInt() == 400
                && entry.path("outcome").asText().contains("expected viewer, runner, editor or admin"));

        // then: the grants read before stay
        assertThat(call("POST", "/flows", TEAM_B, flow("company.team-b.newer")).status()).isEqualTo(200);
        Files.writeString(accessFile, access("company.team-b: runner"));
        awaitStatus(() -> call("POST", "/flows", TEAM_B, flow("company.team-b.newest")).status(), 403);
    }

    private static String access(String teamBGrant) {
        return """
                principals:
                  - name: team-a
                    tokens: [%s]
                    grants:
                      company.team-a: editor
                  - name: team-b
                    tokens: [%s]
                    grants:
                      %s
                      company.team-a: viewer
                  - name: ops
                    tokens: [%s]
                    grants:
                      "*": admin
                """.formatted(sha256(TEAM_A), sha256(TEAM_B), teamBGrant, sha256(OPS));
    }

    private static String flow(String namespace) {
        return """
                id: hello
                namespace: %s
                tasks:
                  - id: say
                    type: io.kestra.plugin.core.log.Log
                    message: hello from {{ flow.namespace }}
                """.formatted(namespace);
    }

    private static java.util.List<String> namespaces(JsonNode search) {
        return StreamSupport.stream(search.path("results").spliterator(), false)
                .map(execution -> execution.path("namespace").asText()).toList();
    }

    private static void awaitAudit(Predicate<JsonNode> wanted) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode results = null;
        while (System.nanoTime() < deadline) {
            results = call("GET", "/audit?limit=1000", OPS, null).json().path("results");
            if (StreamSupport.stream(results.spliterator(), false).anyMatch(wanted)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("No such audit record among " + results);
    }

    private interface Status {
        int get() throws Exception;
    }

    private static void awaitStatus(Status status, int expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int last = -1;
        while (System.nanoTime() < deadline) {
            last = status.get();
            if (last == expected) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("Expected " + expected + " within 30 s, but the last answer was " + last);
    }

    private static Answer call(String method, String path, String token, String body, String... headers)
            throws Exception {
        return BearerCalls.call(api, method, path, token, body, headers);
    }
}
