package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.execution.State;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WaitersTest {
    private final Waiters waiters = new Waiters();

    @Test
    void shouldReleaseAWaiterOnATerminalSnapshotOnlyAndForget() throws Exception {
        // given
        var waiter = waiters.register("ex1", Duration.ofSeconds(30));

        // when
        waiters.onSnapshot(Snapshots.of("ex1", "ns", "f", State.RUNNING));
        waiters.onSnapshot(Snapshots.of("other", "ns", "f", State.SUCCESS));

        // then
        assertThat(waiter).isNotDone();

        // when
        waiters.onSnapshot(Snapshots.of("ex1", "ns", "f", State.FAILED));

        // then
        assertThat(waiter.get(1, TimeUnit.SECONDS).getExecution().getState().name()).isEqualTo("FAILED");
        assertThat(waiters.size()).isZero();
    }

    @Test
    void shouldCompleteWithNullAndForgetWhenTheTimeoutPasses() throws Exception {
        // given
        var waiter = waiters.register("ex2", Duration.ofMillis(50));

        // when
        var snapshot = waiter.get(5, TimeUnit.SECONDS);

        // then
        assertThat(snapshot).isNull();
        assertThat(waiters.size()).isZero();
    }

    @Test
    void shouldForgetACancelledWaiter() {
        // given
        var waiter = waiters.register("ex3", Duration.ofSeconds(30));

        // when
        waiter.cancel(false);

        // then
        assertThat(waiters.size()).isZero();
    }

    @Test
    void shouldFailEveryWaiterWhenStopping() {
        // given
        var first = waiters.register("a", Duration.ofSeconds(30));
        var second = waiters.register("b", Duration.ofSeconds(30));

        // when
        waiters.failAll(ApiException.unavailable("stopping"));

        // then
        assertThat(first).isCompletedExceptionally();
        assertThat(second).isCompletedExceptionally();
        assertThat(waiters.size()).isZero();
    }
}
