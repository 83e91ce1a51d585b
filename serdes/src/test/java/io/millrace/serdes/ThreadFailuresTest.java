package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class ThreadFailuresTest {
    private static final RecoveryPolicy POLICY = new RecoveryPolicy(Duration.ofMillis(50), Duration.ofMillis(200),
            Duration.ofMinutes(1));

    private final Counter replacements = new SimpleMeterRegistry().counter("replacements");
    private final List<Throwable> clientFailures = new ArrayList<>();
    private final ThreadFailures failures = new ThreadFailures("test", POLICY, replacements, clientFailures::add);

    @Test
    void shouldReplaceAStreamThreadAfterPausesThatGrow() throws Exception {
        // when: the same poison kills a stream thread three times in a row
        var pauses = new ArrayList<Long>();
        for (int i = 0; i < 3; i++) {
            long started = System.nanoTime();
            assertThat(onThread("app-1-StreamThread-" + (i + 1), new StreamsException("poison")))
                    .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
            pauses.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }

        // then: 50, 100, 200 ms, each counted
        assertThat(pauses.get(0)).isGreaterThanOrEqualTo(50);
        assertThat(pauses.get(1)).isGreaterThanOrEqualTo(100);
        assertThat(pauses.get(2)).isGreaterThanOrEqualTo(200);
        assertThat(replacements.count()).isEqualTo(3.0);
        assertThat(clientFailures).isEmpty();
    }

    @Test
    void shouldStopTheClientToRebuildItWhenItsGlobalThreadDiesOrAnOffsetIsOutOfRange() throws Exception {
        var outOfRange = new StreamsException(new OffsetOutOfRangeException("out of range",
                Map.of(new TopicPartition("t", 0), 7L)));

        assertThat(onThread("app-1-GlobalStreamThread", new StreamsException("a loader failed")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(onThread("app-1-StreamThread-1", outOfRange)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(clientFailures).hasSize(2);
        assertThat(replacements.count()).isZero();
    }

    @Test
    void shouldEndAPauseWhenTheClientCloses() throws Exception {
        // given: a long pause under way
        var slow = new ThreadFailures("test", new RecoveryPolicy(Duration.ofMinutes(1), Duration.ofMinutes(1),
                Duration.ofMinutes(1)), replacements, clientFailures::add);
        var response = new AtomicReference<StreamThreadExceptionResponse>();
        Thread thread = Thread.ofPlatform().name("app-1-StreamThread-1")
                .start(() -> response.set(slow.handle(new StreamsException("poison"))));
        Thread.sleep(100);

        // when
        slow.close();

        // then
        thread.join(Duration.ofSeconds(5));
        assertThat(thread.isAlive()).isFalse();
        assertThat(response.get()).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    /** The handler's answer, as a thread of that name dying of that failure gets it. */
    private StreamThreadExceptionResponse onThread(String name, Throwable failure) throws Exception {
        var response = new CompletableFuture<StreamThreadExceptionResponse>();
        Thread.ofPlatform().name(name).start(() -> response.complete(failures.handle(failure)));
        return response.get(5, TimeUnit.SECONDS);
    }
}
