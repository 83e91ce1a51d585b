package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.execution.State;
import io.millrace.serdes.Topics;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WaitersTest {
    private final Waiters waiters = new Waiters(1000);

    @Test
    void shouldReleaseAWaiterOnATerminalSnapshotOnlyAndForget() throws Exception {
        // given
        var waiter = waiters.register("ex1", Duration.ofSeconds(30));

        // when
        waiters.onSnapshot("ex1", encoded("ex1", State.RUNNING));
        waiters.onSnapshot("other", encoded("other", State.SUCCESS));

        // then
        assertThat(waiter).isNotDone();

        // when
        waiters.onSnapshot("ex1", encoded("ex1", State.FAILED));

        // then
        assertThat(waiter.get(1, TimeUnit.SECONDS).getExecution().getState().name()).isEqualTo("FAILED");
        assertThat(waiters.size()).isZero();
    }

    @Test
    void shouldNotDecodeTheSnapshotsOfExecutionsNobodyWaitsFor() {
        // given
        var waiter = waiters.register("ex1", Duration.ofSeconds(30));

        // when: bytes that are no snapshot, for another execution
        waiters.onSnapshot("other", new byte[] {1, 2, 3});

        // then: not decoded, so no failure
        assertThat(waiter).isNotDone();
        assertThat(waiters.size()).isEqualTo(1);
    }

    @Test
    void shouldCompleteWithNullAndForgetWhenTheTimeoutPasses() throws Exception {
        // given
        var waiter = waiters.register("ex2", Duration.ofMillis(50));

        // when
        var snapshot = waiter.get(5, TimeUnit.SECONDS);

        // then: the entry goes in the timeout's own completion step, which may run just after get() returns
        assertThat(snapshot).isNull();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (waiters.size() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
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

    private static byte[] encoded(String executionId, State state) {
        return Topics.SNAPSHOT_SERDE.encode(Snapshots.of(executionId, "ns", "f", state));
    }

    @Test
    void shouldRefuseAWaiterOverTheBoundWith429AndFreeThePlaceOnceOneEnds() {
        // given
        var bounded = new Waiters(1);
        var waiter = bounded.register("ex1", Duration.ofSeconds(30));

        // when / then
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> bounded.register("ex2", Duration.ofSeconds(30)))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(429);
                    assertThat(e.retryAfterSeconds()).isEqualTo(Waiters.RETRY_AFTER_SECONDS);
                    assertThat(e.getMessage()).contains("max-wait-requests = 1");
                });

        // when: the first one times out
        waiter.complete(null);

        // then
        assertThat(bounded.register("ex2", Duration.ofSeconds(30))).isNotDone();
    }
}
