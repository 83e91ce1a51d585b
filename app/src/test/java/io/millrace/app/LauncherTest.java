package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LauncherTest {

    @Test
    void shouldNameABadSettingWithoutAStackTrace() {
        // given
        var err = new StringWriter();
        CommandLine launcher = Millrace.commandLine().setErr(new PrintWriter(err, true));

        // when
        int exit = launcher.execute("executor", "--set", "retention=soon");

        // then
        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).startsWith("millrace: Expected retention to be a positive ISO-8601 duration")
                .contains("'soon'").doesNotContain("\tat ");
    }
}
