package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.serdes.CommandBacklog;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The admission decision, against a backlog whose lag the test sets: no broker. */
class AdmissionTest {
    private final AtomicLong lag = new AtomicLong();
    private final AtomicLong now = new AtomicLong(1);
    private volatile boolean failing;
    private final CommandBacklog backlog = new CommandBacklog(() -> {
        if (failing) {
            throw new IllegalStateException("no broker");
        }
        return lag.get();
    }, now::get, "starts are admitted");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void shouldAdmitUpToTheLimitAndRefuseWith503RetryAfterAndTheSettingPastIt() {
        // given
        var admission = new Admission(5000, backlog, registry);
        lag.set(5000);
        backlog.refresh();

        // when / then: at the limit, admitted
        admission.admit();

        // when: over it
        lag.set(5234);
        backlog.refresh();

        // then
        assertThatThrownBy(admission::admit).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.retryAfterSeconds()).isEqualTo(1);
            assertThat(e.getMessage()).isEqualTo("The executor has 5234 commands to read, more than"
                    + " max-executor-backlog (5000); retry later");
        });
        assertThat(refused()).isEqualTo(1);
        assertThat(gauge()).isEqualTo(5234);
    }

    @Test
    void shouldRefuseABurstBeforeTheNextReadSeesIt() {
        // given: an empty backlog, a limit of 3
        var admission = new Admission(3, backlog, registry);
        backlog.refresh();

        // when: starts arrive faster than the lag is read, their creates not yet acknowledged
        var pending = new CompletableFuture<Void>();
        for (int i = 0; i < 4; i++) {
            admission.admit();
            admission.publish(() -> pending);
        }

        // then
        assertThatThrownBy(admission::admit).isInstanceOf(ApiException.class);

        // when: Kafka has them and the executor read them
        pending.complete(null);
        backlog.refresh();

        // then
        admission.admit();
        assertThat(refused()).isEqualTo(1);
    }

    @Test
    void shouldForgetACreateWhoseSendFailed() {
        // given
        var admission = new Admission(1, backlog, registry);
        backlog.refresh();
        admission.publish(() -> CompletableFuture.failedFuture(new IllegalStateException("refused")));
        admission.publish(() -> CompletableFuture.failedFuture(new IllegalStateException("refused")));

        // when: a read after they failed
        backlog.refresh();

        // then
        admission.admit();
    }

    @Test
    void shouldAdmitOnceTheBacklogCouldNotBeReadForLong() {
        // given: a backlog over the limit, then reads that fail
        var admission = new Admission(10, backlog, registry);
        lag.set(50);
        backlog.refresh();
        failing = true;
        backlog.refresh();

        // then: the last count holds for a while
        assertThatThrownBy(admission::admit).isInstanceOf(ApiException.class);

        // when: reads fail for BLIND_AFTER
        now.addAndGet(CommandBacklog.BLIND_AFTER.toNanos());
        backlog.refresh();

        // then: fail open
        admission.admit();
        assertThat(gauge()).isNaN();
    }

    @Test
    void shouldAdmitEveryStartWhenTheLimitIsZero() {
        // given
        var admission = new Admission(0, null, registry);

        // when
        admission.admit();
        var acked = admission.publish(() -> CompletableFuture.completedFuture(null));

        // then
        assertThat(acked).isCompleted();
        assertThat(refused()).isZero();
        assertThat(gauge()).isNaN();
    }

    private double refused() {
        return registry.get("millrace.gateway.starts.refused").tag("reason", "executor_backlog").counter().count();
    }

    private double gauge() {
        return registry.get("millrace.gateway.executor.backlog").gauge().value();
    }
}
