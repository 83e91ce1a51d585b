package io.millrace.worker.task;

import io.millrace.serdes.HttpTargets;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.millrace.config.ConfigLoader;
import io.millrace.config.HostRules;
import io.millrace.config.MillraceConfig;
import io.millrace.config.TaskReach;
import io.millrace.core.execution.State;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.TaskTypes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an http.Request may reach, against real servers on 127.0.0.1 and 127.0.0.2 (loopback: no traffic leaves the
 * machine). 127.0.0.2 stands for a forbidden target: the operator's task-http-deny names it.
 */
class HttpRequestReachTest {
    private static final Map<String, Object> VARS = Variables.builder().build();
    private static final String DENY_SECOND = "127.0.0.2/32";

    @TempDir
    static Path dir;

    private static ExecutorService handlers;
    private static HttpServer first;
    private static HttpServer second;
    private static HttpsServer secure;
    private static TrustManager[] trustingTestCertificate;
    private static String firstBase;
    private static String secondBase;

    @BeforeAll
    static void startServers() throws Exception {
        handlers = Executors.newVirtualThreadPerTaskExecutor();
        second = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0), 0);
        second.createContext("/", exchange -> reply(exchange, 200, "second " + exchange.getRequestURI()));
        second.createContext("/headers", HttpRequestReachTest::headers);
        second.setExecutor(handlers);
        second.start();
        secondBase = "http://127.0.0.2:" + second.getAddress().getPort();
        first = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        first.createContext("/echo", exchange -> reply(exchange, 200, exchange.getRequestMethod() + " host="
                + exchange.getRequestHeaders().getFirst("Host") + " body="
                + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
        first.createContext("/to-second", exchange -> redirect(exchange, 302, secondBase + "/landed"));
        first.createContext("/see-other", exchange -> redirect(exchange, 303, "/echo"));
        first.createContext("/loop", exchange -> redirect(exchange, 307, "/loop"));
        first.createContext("/headers", HttpRequestReachTest::headers);
        first.createContext("/to-second-headers", exchange -> redirect(exchange, 307, secondBase + "/headers"));
        first.createContext("/to-own-headers", exchange -> redirect(exchange, 307, "/headers"));
        first.setExecutor(handlers);
        first.start();
        firstBase = "http://127.0.0.1:" + first.getAddress().getPort();
        SSLContext serving = tls(dir);
        secure = HttpsServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        secure.setHttpsConfigurator(new HttpsConfigurator(serving));
        secure.createContext("/", exchange -> reply(exchange, 200, "secure"));
        secure.setExecutor(handlers);
        secure.start();
    }

    @AfterAll
    static void stopServers() {
        for (HttpServer server : new HttpServer[] {first, second, secure}) {
            if (server != null) {
                server.stop(0);
            }
        }
        handlers.shutdownNow();
    }

    /** A key pair whose certificate names localhost only (not 127.0.0.1): the server's, and the client's trust. */
    private static SSLContext tls(Path dir) throws Exception {
        Path store = dir.resolve("localhost.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "localhost", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost", "-validity", "2", "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String said = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor()).as(said).isZero();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, "changeit".toCharArray());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(keys);
        SSLContext serving = SSLContext.getInstance("TLS");
        serving.init(keyManagers.getKeyManagers(), null, null);
        trustingTestCertificate = trust.getTrustManagers();
        return serving;
    }

    private static void redirect(HttpExchange exchange, int status, String location) throws IOException {
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().add("Location", location);
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    private static void headers(HttpExchange exchange) throws IOException {
        var headers = exchange.getRequestHeaders();
        reply(exchange, 200, "key=" + headers.getFirst("X-Api-Key") + " auth=" + headers.getFirst("Authorization")
                + " type=" + headers.getFirst("Content-Type"));
    }

    private static void reply(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static HttpRequestTask task(boolean standalone, String deny, String allow, HttpTargets.Resolver resolver) {
        var reach = new TaskReach(HostRules.parse("task-http-deny", deny), HostRules.parse("task-http-allow", allow),
                false, false, true);
        return new HttpRequestTask(new HttpTargets(reach, standalone, List.of(), resolver), trustingTestCertificate);
    }

    private static TaskOutcome run(HttpRequestTask task, Map<String, Object> props) throws InterruptedException {
        return task.execute(Invocations.of("h", TaskTypes.HTTP_REQUEST, props, VARS));
    }

    @Test
    void shouldRefuseADeniedTargetBeforeSendingAnything() throws Exception {
        // given
        HttpRequestTask denying = task(true, DENY_SECOND, "", HttpTargets.Resolver.SYSTEM);

        // when
        TaskOutcome refused = run(denying, Map.of("uri", secondBase + "/secret"));

        // then
        assertThat(refused).isEqualTo(TaskOutcome.failed("Task 'h': GET " + secondBase + "/secret refused: the target"
                + " 127.0.0.2 is not allowed: the setting task-http-deny refuses it; the setting task-http-allow"
                + " allows it (e.g. --set task-http-allow=127.0.0.2/32)"));
    }

    @Test
    void shouldCheckEveryTargetARedirectLeadsTo() throws Exception {
        // given
        HttpRequestTask denying = task(true, DENY_SECOND, "", HttpTargets.Resolver.SYSTEM);
        HttpRequestTask open = task(true, "", "", HttpTargets.Resolver.SYSTEM);

        // when
        TaskOutcome refused = run(denying, Map.of("uri", firstBase + "/to-second"));
        TaskOutcome followed = run(open, Map.of("uri", firstBase + "/to-second"));

        // then: the same redirect reaches 127.0.0.2 unless it is denied
        assertThat(refused.error()).isEqualTo("Task 'h': GET " + secondBase + "/landed refused: the target 127.0.0.2 is"
                + " not allowed: the setting task-http-deny refuses it; the setting task-http-allow allows it"
                + " (e.g. --set task-http-allow=127.0.0.2/32)");
        assertThat(followed.state()).isEqualTo(State.SUCCESS);
        assertThat(followed.outputs()).containsEntry("code", 200).containsEntry("body", "second /landed")
                .containsEntry("uri", firstBase + "/to-second");
    }

    @Test
    void shouldDropEveryHeaderOfTheFlowOnARedirectToAnotherHost() throws Exception {
        // given
        HttpRequestTask open = task(true, "", "", HttpTargets.Resolver.SYSTEM);
        Map<String, Object> headers = Map.of("X-Api-Key", "k-123", "Authorization", "Bearer t");

        // when
        TaskOutcome elsewhere = run(open, Map.of("uri", firstBase + "/to-second-headers", "method", "POST",
                "body", "{}", "contentType", "application/json", "headers", headers));
        TaskOutcome same = run(open, Map.of("uri", firstBase + "/to-own-headers", "method", "POST",
                "body", "{}", "contentType", "application/json", "headers", headers));

        // then: the body keeps its type; the flow's headers go only to the same scheme, host and port
        assertThat(elsewhere.outputs()).containsEntry("body", "key=null auth=null type=application/json");
        assertThat(same.outputs()).containsEntry("body", "key=k-123 auth=Bearer t type=application/json");
    }

    @Test
    void shouldConnectToTheAddressItCheckedAndNameTheHostInTheHostHeader() throws Exception {
        // given: a name that answers 127.0.0.1 once, then the denied 127.0.0.2 (DNS rebinding)
        var lookups = new AtomicInteger();
        HttpRequestTask task = task(true, DENY_SECOND, "", host -> new InetAddress[] {
                InetAddress.getByName(lookups.getAndIncrement() == 0 ? "127.0.0.1" : "127.0.0.2")});
        String port = Integer.toString(first.getAddress().getPort());

        // when
        TaskOutcome outcome = run(task, Map.of("uri", "http://rebind.test:" + port + "/echo"));

        // then: the request went to 127.0.0.1, looked up once, with the name it was sent for
        assertThat(outcome.error()).isNull();
        assertThat(outcome.outputs()).containsEntry("body", "GET host=rebind.test:" + port + " body=");
        assertThat(lookups).hasValue(1);
    }

    @Test
    void shouldFollowRedirectsAsJavasClientDoesAndStopAtTheLimit() throws Exception {
        // given
        HttpRequestTask open = task(true, "", "", HttpTargets.Resolver.SYSTEM);

        // when
        TaskOutcome seeOther = run(open, Map.of("uri", firstBase + "/see-other", "method", "POST", "body", "data"));
        TaskOutcome notFollowed = run(open, Map.of("uri", firstBase + "/see-other",
                "options", Map.of("followRedirects", false)));
        TaskOutcome loop = run(open, Map.of("uri", firstBase + "/loop"));

        // then
        assertThat(seeOther.outputs()).containsEntry("body", "GET host=127.0.0.1:" + first.getAddress().getPort()
                + " body=");
        assertThat(notFollowed.outputs()).containsEntry("code", 303);
        assertThat(loop.error()).isEqualTo("Task 'h': GET " + firstBase + "/loop was redirected more than 5 times; the"
                + " last time to " + firstBase + "/loop");
    }

    @Test
    void shouldReachThisMachineOutsideStandaloneOnlyWhereTheOperatorAllowsIt() throws Exception {
        // given: a worker role's rules, as configured by default and with an allowance
        MillraceConfig defaults = MillraceConfig.defaults();
        MillraceConfig allowing = ConfigLoader.load(Map.of(), Map.of("task-http-allow", "127.0.0.1/32"), null);
        var role = new HttpRequestTask(HttpTargets.forRole(defaults), null);
        var allowed = new HttpRequestTask(HttpTargets.forRole(allowing), null);

        // when
        TaskOutcome refused = run(role, Map.of("uri", firstBase + "/echo"));
        TaskOutcome reached = run(allowed, Map.of("uri", firstBase + "/echo"));

        // then
        assertThat(refused.error()).isEqualTo("Task 'h': GET " + firstBase + "/echo refused: the target 127.0.0.1 is not"
                + " allowed: it is this machine (loopback or one of its addresses), which tasks may reach only in"
                + " standalone; the setting task-http-allow allows it (e.g. --set task-http-allow=127.0.0.1/32)");
        assertThat(reached.state()).isEqualTo(State.SUCCESS);
    }

    @Test
    void shouldCheckTheCertificateAgainstTheNameWhileConnectingToTheAddress() throws Exception {
        // given: localhost looked up by the test's table; the certificate names localhost, not 127.0.0.1
        HttpRequestTask task = task(true, "", "", host -> new InetAddress[] {InetAddress.getByName("127.0.0.1")});
        int port = secure.getAddress().getPort();

        // when
        TaskOutcome byName = run(task, Map.of("uri", "https://localhost:" + port + "/"));
        TaskOutcome byAddress = run(task, Map.of("uri", "https://127.0.0.1:" + port + "/"));

        // then
        assertThat(byName.error()).isNull();
        assertThat(byName.outputs()).containsEntry("body", "secure");
        assertThat(byAddress.state()).isEqualTo(State.FAILED);
        assertThat(byAddress.error()).contains("https://127.0.0.1:" + port + "/", "ssl handshake")
                .doesNotContain("Exception");
    }
}
