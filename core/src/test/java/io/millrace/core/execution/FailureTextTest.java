package io.millrace.core.execution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class FailureTextTest {
    @Test
    void shouldPutAFailuresKindInWordsBesideItsMessage() {
        assertThat(FailureText.describe(new UnknownHostException("nohost.invalid")))
                .isEqualTo("unknown host: nohost.invalid");
        assertThat(FailureText.describe(new SSLHandshakeException("bad cert"))).isEqualTo("ssl handshake: bad cert");
        assertThat(FailureText.describe(new IOException("closed"))).isEqualTo("I/O: closed");
        assertThat(FailureText.describe(new UncheckedIOException(new IOException("x")))).startsWith("I/O: ");
        assertThat(FailureText.describe(new Exception())).isEqualTo("failure");
        assertThat(FailureText.describe(new StackOverflowError())).isEqualTo("stack overflow");
    }

    @Test
    void shouldScrubStackFramesQualifiedNamesAndExceptionNamesButLeaveOtherText() {
        // given
        String trace = """
                java.lang.IllegalStateException: boom at company.team/flow (see example.com)
                \tat io.millrace.worker.Thing.run(Thing.java:12)
                \tat java.base/java.lang.Thread.run(Thread.java:1474)
                Caused by: org.apache.kafka.common.errors.TimeoutException: slow
                \t... 3 more
                class java.lang.String cannot be cast to class java.util.Map""";

        // when
        String scrubbed = FailureText.scrub(trace);

        // then
        assertThat(scrubbed).isEqualTo("""
                illegal state: boom at company.team/flow (see example.com)
                Caused by: timeout: slow
                class String cannot be cast to class Map""");
        assertThat(FailureText.scrub("a plain message, file.txt; Error: none"))
                .isEqualTo("a plain message, file.txt; Error: none");
        assertThat(FailureText.scrub(null)).isNull();
    }
}
