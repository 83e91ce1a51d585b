package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.serdes.CommandBacklog;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The admission decision, against a backlog whose lag the test sets: no broker. */
class AdmissionTest {
    private final AtomicLong lag = new AtomicLong();
    private final AtomicLong now = new AtomicLong(1);
    private volatile boolean failing;
    /** Commands the executor started, all partitions together; -1: unknown. */
    private final AtomicLong started = new AtomicLong(-1);
    private final CommandBacklog backlog = new CommandBacklog(new CommandBacklog.Lag() {
        @Override
        public long read() {
            if (failing) {
                throw new IllegalStateException("no broker");
            }
            return lag.get();
        }

        @Override
        public long started() {
            return started.get();
        }
    }, now::get, "starts are admitted");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void shouldAdmitUpToTheLimitAndRefuseWith503RetryAfterAndTheSettingPastIt() {
        // given
        var admission = new Admission(5000, Duration.ZERO, backlog, registry);
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
        var admission = new Admission(3, Duration.ZERO, backlog, registry);
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
        var admission = new Admission(1, Duration.ZERO, backlog, registry);
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
        var admission = new Admission(10, Duration.ZERO, backlog, registry);
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
    void shouldRefuseAStartTheExecutorWouldStartLaterThanTheDelayAtItsBusyRate() {
        // given: no bound on the count, 0.5 s on the delay, and a busy executor that starts 1,000 commands a second
        var admission = new Admission(0, Duration.ofMillis(500), backlog, registry);
        lag.set(5000);
        started.set(0);
        backlog.refresh();
        started.set(1000);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        backlog.refresh();
        assertThat(backlog.busyStartRate()).hasValue(1000.0);

        // when: 450 commands ahead (0.45 s)
        lag.set(450);
        backlog.refresh();

        // then: admitted
        admission.admit();

        // when: 600 ahead (0.6 s)
        lag.set(600);
        backlog.refresh();

        // then
        assertThatThrownBy(admission::admit).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.retryAfterSeconds()).isEqualTo(1);
            assertThat(e.getMessage()).isEqualTo("The executor would start this execution in about 0.6 s (600 commands"
                    + " ahead, at the 1000 a second it started when last busy), later than max-executor-delay (PT0.5S);"
                    + " retry later");
        });
        assertThat(registry.get("millrace.gateway.starts.refused").tag("reason", "executor_delay").counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldJudgeASmallBacklogOrAnExecutorNeverSeenBusyByTheCountAlone() {
        // given: a busy executor that started 100 commands a second, and a delay of 0.5 s
        var admission = new Admission(0, Duration.ofMillis(500), backlog, registry);
        lag.set(5000);
        started.set(0);
        backlog.refresh();
        started.set(100);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        backlog.refresh();

        // when: a backlog of BUSY_BACKLOG (a second at that rate)
        lag.set(CommandBacklog.BUSY_BACKLOG);
        backlog.refresh();

        // then: admitted
        admission.admit();

        // when: an executor never seen busy, however long its backlog
        var neverBusy = new CommandBacklog(() -> 5000, now::get, "-");
        neverBusy.refresh();
        var unknown = new Admission(0, Duration.ofMillis(500), neverBusy, registry);

        // then: admitted
        unknown.admit();
    }

    @Test
    void shouldAdmitEveryStartWhenTheLimitIsZero() {
        // given
        var admission = new Admission(0, Duration.ZERO, null, registry);

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
