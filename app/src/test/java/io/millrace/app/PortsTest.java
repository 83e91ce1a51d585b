package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.config.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PortsTest {
    @Test
    void shouldNameAPortInUseAndTheSettingThatMovesIt() throws Exception {
        try (var taken = new ServerSocket()) {
            // given
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();

            // then
            assertThatThrownBy(() -> Ports.requireFree(Map.of("--port", port)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("Port " + port + " is already in use by another process: stop it, or choose another"
                            + " port with --port");
        }
        Ports.requireFree(Map.of("--port", 0));
    }

    @Test
    void shouldAnswerHelpOnEverySubcommandAndOneLineForAPortInUse() throws Exception {
        for (String command : new String[] {"standalone", "executor", "worker", "gateway", "triggers", "bench"}) {
            // when
            var out = new ByteArrayOutputStream();
            int code = Millrace.commandLine().setOut(new PrintWriter(out, true, StandardCharsets.UTF_8))
                    .execute(command, "--help");

            // then
            assertThat(code).as(command).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).as(command).startsWith("Usage: millrace " + command);
        }
        try (var taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(0));
            var err = new ByteArrayOutputStream();
            int code = Millrace.commandLine().setErr(new PrintWriter(err, true, StandardCharsets.UTF_8))
                    .execute("gateway", "--port", Integer.toString(taken.getLocalPort()), "--set",
                            "auth-tokens=a-token-of-enough-length", "--set", "management-port=0");
            assertThat(code).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8).strip()).isEqualTo("millrace: Port "
                    + taken.getLocalPort() + " is already in use by another process: stop it, or choose another port"
                    + " with --port");
        }
    }
}
