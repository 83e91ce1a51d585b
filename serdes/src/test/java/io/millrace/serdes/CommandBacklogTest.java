package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The count of the executor's unread commands, with a lag that the test sets and a clock that it moves. */
class CommandBacklogTest {
    private final AtomicLong lag = new AtomicLong();
    private final AtomicLong now = new AtomicLong(1_000);
    private volatile boolean failing;
    private final CommandBacklog backlog = new CommandBacklog(() -> {
        if (failing) {
            throw new IllegalStateException("no broker");
        }
        return lag.get();
    }, now::get, "nothing is held back");

    /** Commands the executor started, all partitions together, for {@link #watched}. */
    private final AtomicLong position = new AtomicLong();
    /** A backlog that also knows the executor's position: what the start rate is measured from. */
    private final CommandBacklog watched = new CommandBacklog(new CommandBacklog.Lag() {
        @Override
        public long read() {
            return lag.get();
        }

        @Override
        public long started() {
            return position.get();
        }
    }, now::get, "nothing is held back");

    @Test
    void shouldCountCreatesOnTheirWayBeforeTheNextRead() {
        // given
        lag.set(100);
        backlog.refresh();

        // when: 20 creates are sent, and Kafka has not acknowledged them yet
        backlog.sent(20);

        // then
        assertThat(backlog.commands()).hasValue(120);
    }

    @Test
    void shouldCountAnAcknowledgedCreateOnceTheLagHasIt() {
        // given: 20 creates sent and acknowledged, not yet read in the lag
        backlog.sent(20);
        backlog.settled(20);
        assertThat(backlog.commands()).as("still counted until a read that began after").hasValue(20);

        // when: a read sees them in the topic
        lag.set(20);
        backlog.refresh();

        // then: counted once
        assertThat(backlog.commands()).hasValue(20);
    }

    @Test
    void shouldKeepTheLastCountWhileReadsFailAndThenKnowNothing() {
        // given
        lag.set(500);
        backlog.refresh();
        failing = true;

        // when: reads fail for less than BLIND_AFTER
        backlog.refresh();
        now.addAndGet(CommandBacklog.BLIND_AFTER.toNanos() - 1);
        backlog.refresh();

        // then: the last count holds
        assertThat(backlog.commands()).hasValue(500);

        // when: for BLIND_AFTER
        now.addAndGet(1);
        backlog.refresh();

        // then: unknown
        assertThat(backlog.commands()).isEmpty();

        // when: a read succeeds again
        failing = false;
        lag.set(7);
        backlog.refresh();

        // then
        assertThat(backlog.commands()).hasValue(7);
    }

    @Test
    void shouldMeasureTheFailuresFromTheFirstOfARun() {
        // given: a failure, a success, then failures again
        failing = true;
        backlog.refresh();
        now.addAndGet(CommandBacklog.BLIND_AFTER.toNanos());
        failing = false;
        backlog.refresh();
        failing = true;

        // when: the new run of failures is younger than BLIND_AFTER
        backlog.refresh();
        now.addAndGet(CommandBacklog.BLIND_AFTER.toNanos() / 2);
        backlog.refresh();

        // then
        assertThat(backlog.commands()).isPresent();
    }

    @Test
    void shouldMeasureTheStartRateOnlyWhileTheExecutorIsBusyAndKeepTheLast() {
        // given: an executor whose position and backlog the test moves

        // when: it starts 900 commands in a second, with no more than BUSY_BACKLOG waiting (it takes what comes)
        lag.set(CommandBacklog.BUSY_BACKLOG);
        watched.refresh();
        step(900);

        // then: that says nothing of what it can do
        assertThat(watched.busyStartRate()).isEmpty();

        // when: busy, 300 a second, then 200
        lag.set(5000);
        watched.refresh();
        step(300);
        assertThat(watched.busyStartRate()).hasValue(300.0);
        step(200);

        // then: the last busy second
        assertThat(watched.busyStartRate()).hasValue(200.0);

        // when: idle for a minute
        lag.set(0);
        for (int i = 0; i < 60; i++) {
            step(10);
        }

        // then: still what it did when last busy
        assertThat(watched.busyStartRate()).hasValue(200.0);

        // when: busy again, but its offsets went back (a new executor group) and a second passes
        lag.set(5000);
        watched.refresh();
        position.set(0);
        watched.refresh();
        step(50);

        // then: measured from where they went back
        assertThat(watched.busyStartRate()).hasValue(50.0);
    }

    @Test
    void shouldTellWhetherABacklogTakesLongerToStartThanADelay() {
        // given: a busy executor starting 400 commands a second
        lag.set(1000);
        watched.refresh();
        step(400);

        // then
        assertThat(watched.secondsToStart(200)).hasValue(0.5);
        assertThat(watched.laterThan(200, Duration.ofMillis(250))).isTrue();
        assertThat(watched.laterThan(200, Duration.ofMillis(500))).isFalse();
        assertThat(watched.laterThan(200, Duration.ZERO)).as("no bound").isFalse();
        assertThat(watched.secondsToStartLaterThan(200, Duration.ofMillis(250))).hasValue(0.5);
        assertThat(watched.secondsToStartLaterThan(200, Duration.ofMillis(500))).isEmpty();
        assertThat(watched.secondsToStart(CommandBacklog.BUSY_BACKLOG)).as("a burst").isEmpty();
        assertThat(new CommandBacklog(() -> 5000, now::get, "-").laterThan(5000, Duration.ofMillis(1)))
                .as("an executor never seen busy").isFalse();
    }

    /** A second later, {@code started} more commands started. */
    private void step(long started) {
        now.addAndGet(CommandBacklog.RATE_SPAN.toNanos());
        position.addAndGet(started);
        watched.refresh();
    }
}
