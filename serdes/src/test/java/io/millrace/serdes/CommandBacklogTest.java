package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

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
    void shouldRememberTheFastestStartRateOverASecondForAMinute() {
        // given: an executor whose position the test moves
        var position = new AtomicLong();
        var watched = new CommandBacklog(new CommandBacklog.Lag() {
            @Override
            public long read() {
                return 0;
            }

            @Override
            public long started() {
                return position.get();
            }
        }, now::get, "nothing is held back");
        watched.refresh();
        assertThat(watched.fastestStartRate()).as("one reading").isEmpty();

        // when: 800 commands in a second, then 100 in the next
        step(watched, position, 800);
        step(watched, position, 100);

        // then
        assertThat(watched.fastestStartRate()).hasValue(800.0);

        // when: more than a minute of idling
        for (int i = 0; i < 61; i++) {
            step(watched, position, 0);
        }

        // then: forgotten
        assertThat(watched.fastestStartRate()).isEmpty();

        // when: it goes again, then its offsets go back (a new executor group)
        step(watched, position, 300);
        assertThat(watched.fastestStartRate()).hasValue(300.0);
        position.set(10);
        watched.refresh();

        // then: what it did before says nothing
        assertThat(watched.fastestStartRate()).isEmpty();
    }

    /** A second later, {@code started} more commands started. */
    private void step(CommandBacklog watched, AtomicLong position, long started) {
        now.addAndGet(CommandBacklog.RATE_SPAN.toNanos());
        position.addAndGet(started);
        watched.refresh();
    }
}
