package io.millrace.app;

import static io.millrace.app.BearerCalls.sha256;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.app.BearerCalls.Answer;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every endpoint × every role × a namespace inside and outside the grant: allowed (anything but 403), refused (403
 * naming the missing grant), or, for searches and log streams, filtered to what the caller may see.
 */
class AuthorizationMatrixTest {
    private static final String MINE = "company.a";
    private static final String OTHERS = "company.b";
    /** Each principal's token; the first four have their role on company.a only, "root" is an admin of "*". */
    private static final Map<String, String> TOKENS = new LinkedHashMap<>();
    private static final Map<String, String> ROLES = Map.of("viewer", "viewer", "runner", "runner",
            "editor", "editor", "admin", "admin", "root", "admin");
    private static final List<String> ORDER = List.of("viewer", "runner", "editor", "admin");

    @TempDir
    static Path dir;

    private static Engine engine;
    private static String api;
    /** An ended execution in each namespace, by namespace. */
    private static final Map<String, String> EXECUTIONS = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        var yaml = new StringBuilder("principals:\n");
        for (String name : ROLES.keySet().stream().sorted().toList()) {
            String token = name + "-" + UUID.randomUUID();
            TOKENS.put(name, token);
            yaml.append("  - name: ").append(name).append("\n    tokens: [").append(sha256(token))
                    .append("]\n    grants:\n      \"").append(name.equals("root") ? "*" : MINE).append("\": ")
                    .append(ROLES.get(name)).append('\n');
        }
        Path access = Files.writeString(dir.resolve("access.yaml"), yaml);
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("matrix", dir.resolve("state"),
                "port", "0", "access-file", access.toString()), null);
        engine = Engine.start(config);
        api = "http://localhost:" + engine.port() + "/api/v1";
        for (String namespace : List.of(MINE, OTHERS)) {
            assertThat(call("POST", "/flows", "root", flow(namespace, "f")).status()).isEqualTo(200);
            Answer run = call("POST", "/executions/" + namespace + "/f?wait=true&timeout=PT60S", "root", "{}");
            assertThat(run.json().at("/state/current").asText()).isEqualTo("SUCCESS");
            EXECUTIONS.put(namespace, run.json().path("id").asText());
        }
    }

    @AfterAll
    static void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void shouldAllowEachCallToTheRolesThatMayMakeItAndRefuseTheRestNamingTheGrant() throws Exception {
        var failures = new ArrayList<String>();
        for (String principal : TOKENS.keySet()) {
            for (String namespace : List.of(MINE, OTHERS)) {
                String id = EXECUTIONS.get(namespace);
                String deletable = "del-" + principal;
                call("POST", "/flows", "root", flow(namespace, deletable));
                // endpoint, the role it needs, and the call
                var calls = new LinkedHashMap<String, Object[]>();
                calls.put("deploy", new Object[] {"editor", "POST", "/flows", flow(namespace, "f")});
                calls.put("delete", new Object[] {"editor", "DELETE", "/flows/" + namespace + "/" + deletable, null});
                calls.put("read flow", new Object[] {"viewer", "GET", "/flows/" + namespace + "/f", null});
                calls.put("revisions", new Object[] {"viewer", "GET", "/flows/" + namespace + "/f/revisions", null});
                calls.put("graph", new Object[] {"viewer", "GET", "/flows/" + namespace + "/f/graph", null});
                calls.put("start", new Object[] {"runner", "POST", "/executions/" + namespace + "/f", "{}"});
                calls.put("kill", new Object[] {"runner", "POST", "/executions/" + id + "/kill", null});
                calls.put("kill (DELETE)", new Object[] {"runner", "DELETE", "/executions/" + id + "/kill", null});
                calls.put("pause", new Object[] {"runner", "POST", "/executions/" + id + "/pause", null});
                calls.put("resume", new Object[] {"runner", "POST", "/executions/" + id + "/resume", "{}"});
                calls.put("restart", new Object[] {"runner", "POST", "/executions/" + id + "/restart", null});
                calls.put("replay", new Object[] {"runner", "POST", "/executions/" + id + "/replay", null});
                calls.put("read execution", new Object[] {"viewer", "GET", "/executions/" + id, null});
                calls.put("logs", new Object[] {"viewer", "GET", "/logs/" + id, null});
                calls.put("logs download", new Object[] {"viewer", "GET", "/logs/" + id + "/download", null});
                for (var entry : calls.entrySet()) {
                    Object[] c = entry.getValue();
                    boolean may = allowed(principal, namespace, (String) c[0]);
                    Answer answer = call((String) c[1], (String) c[2], principal, (String) c[3]);
                    String what = principal + " " + entry.getKey() + " in " + namespace + ": " + answer.status();
                    if (may && answer.status() == 403 || !may && answer.status() != 403) {
                        failures.add(what + " " + answer.body());
                    } else if (!may && !answer.json().path("message").asText().startsWith("Principal '" + principal
                            + "' has no " + c[0] + " grant on namespace '" + namespace + "'")) {
                        failures.add(what + ", but the message does not name the grant: " + answer.body());
                    }
                }
                // a follow of an execution the caller may not see ends with an error event, and shows nothing of it
                Answer followed = call("GET", "/executions/" + id + "/follow", principal, null,
                        "Accept", "text/event-stream");
                boolean sees = allowed(principal, namespace, "viewer");
                if (sees != followed.body().contains("\"id\":\"" + id + "\"")
                        || sees == followed.body().contains("no viewer grant")) {
                    failures.add(principal + " follow in " + namespace + ": " + followed.body());
                }
                // searches and log lines hold only what the caller may see
                JsonNode found = call("GET", "/executions/search?size=1000&namespace=" + namespace, principal, null)
                        .json();
                if (sees != found.path("total").asInt() > 0 || found.path("total").asInt()
                        != found.path("results").size() && found.path("results").size() < 1000) {
                    failures.add(principal + " search in " + namespace + ": " + found);
                }
            }
            // validation stores nothing and tells only of the YAML sent: every principal may
            if (call("POST", "/flows/validate", principal, flow(OTHERS, "f")).status() != 200) {
                failures.add(principal + " validate: refused");
            }
            // every principal may ask who it is and what it may do
            JsonNode me = call("GET", "/me", principal, null).json();
            String grants = "[{\"namespace\":\"" + (principal.equals("root") ? "*" : MINE) + "\",\"role\":\""
                    + ROLES.get(principal) + "\"}]";
            if (!me.path("name").asText().equals(principal) || !me.path("grants").toString().equals(grants)) {
                failures.add(principal + " me: " + me);
            }
            Answer audit = call("GET", "/audit", principal, null);
            if (principal.equals("root") != (audit.status() == 200)) {
                failures.add(principal + " audit: " + audit.status());
            }
        }
        assertThat(failures).isEmpty();
    }

    private static boolean allowed(String principal, String namespace, String needed) {
        if (principal.equals("root")) {
            return true;
        }
        return namespace.equals(MINE) && ORDER.indexOf(ROLES.get(principal)) >= ORDER.indexOf(needed);
    }

    private static String flow(String namespace, String id) {
        return """
                id: %s
                namespace: %s
                tasks:
                  - id: say
                    type: io.kestra.plugin.core.log.Log
                    message: hello
                """.formatted(id, namespace);
    }

    private static Answer call(String method, String path, String principal, String body,
            String... headers) throws Exception {
        return BearerCalls.call(api, method, path, TOKENS.get(principal), body, headers);
    }
}
