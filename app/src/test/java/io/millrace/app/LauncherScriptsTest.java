package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell scripts the container image runs: the launcher bin/millrace and deploy/healthcheck. */
class LauncherScriptsTest {
    private static final Path ROOT = repositoryRoot();

    @TempDir
    Path temp;

    @Test
    void shouldRunTheJarNamedByMillraceJarWithTheJavaOptions() throws Exception {
        // given
        Path jar = echoJar();

        // when
        Run run = run(List.of(ROOT.resolve("bin/millrace").toString(), "worker", "--port", "1"),
                Map.of("MILLRACE_JAR", jar.toString(), "MILLRACE_JAVA_OPTS", "-Dgreeting=hello -Xmx64m"));

        // then
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("hello [worker, --port, 1]\n");
    }

    @Test
    void shouldStopWithoutBuildingWhenTheJarNamedByMillraceJarIsMissing() throws Exception {
        // given
        Path missing = temp.resolve("nowhere/millrace.jar");

        // when
        Run run = run(List.of(ROOT.resolve("bin/millrace").toString(), "--version"), Map.of("MILLRACE_JAR", missing.toString()));

        // then
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("millrace: MILLRACE_JAR names " + missing + ", which does not exist.\n");
    }

    @Test
    void shouldReportHealthyOnlyWhileHealthAnswers200() throws Exception {
        // given
        var status = new AtomicInteger(503);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/health", exchange -> {
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status.get(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        String port = String.valueOf(server.getAddress().getPort());
        String check = ROOT.resolve("deploy/healthcheck").toString();

        try {
            // when
            Run starting = run(List.of(check, port), Map.of());
            status.set(200);
            Run up = run(List.of(check, port), Map.of());
            Run upByTheManagementPortVariable = run(List.of(check), Map.of("MILLRACE_MANAGEMENT_PORT", port));

            // then
            assertThat(starting.exit()).isEqualTo(1);
            assertThat(starting.err()).isEqualTo("unhealthy: HTTP/1.1 503 Service Unavailable\n");
            assertThat(up.exit()).as(up.err()).isZero();
            assertThat(up.out()).isEqualTo("healthy: HTTP/1.1 200 OK\n");
            assertThat(upByTheManagementPortVariable.exit()).as(upByTheManagementPortVariable.err()).isZero();
        } finally {
            server.stop(0);
        }

        // when the server is gone
        Run gone = run(List.of(check, port), Map.of());

        // then
        assertThat(gone.exit()).isEqualTo(1);
        assertThat(gone.err()).isEqualTo("unhealthy: nothing listens on 127.0.0.1:" + port + "\n");
    }

    /** A jar whose main prints the system property greeting and its arguments. */
    private Path echoJar() throws IOException {
        Path source = temp.resolve("src/Echo.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, """
                public class Echo {
                    public static void main(String[] args) {
                        System.out.println(System.getProperty("greeting") + " " + java.util.Arrays.toString(args));
                    }
                }
                """);
        Path classes = Files.createDirectories(temp.resolve("classes"));
        int compiled = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), source.toString());
        assertThat(compiled).as("javac of Echo.java").isZero();
        var manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Echo");
        Path jar = temp.resolve("echo.jar");
        try (var out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.putNextEntry(new JarEntry("Echo.class"));
            out.write(Files.readAllBytes(classes.resolve("Echo.class")));
            out.closeEntry();
        }
        return jar;
    }

    private static Run run(List<String> command, Map<String, String> variables) throws Exception {
        var builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(name -> name.startsWith("MILLRACE_"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(variables);
        Path out = Files.createTempFile("script", ".out");
        Path err = Files.createTempFile("script", ".err");
        try {
            Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ends within 60 s", command).isTrue();
            return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.delete(out);
            Files.delete(err);
        }
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("bin/millrace")) && Files.isRegularFile(dir.resolve("deploy/healthcheck"))) {
                return dir;
            }
        }
        throw new IllegalStateException("No bin/millrace and deploy/healthcheck above " + Path.of("").toAbsolutePath());
    }

    private record Run(int exit, String out, String err) {
    }
}
