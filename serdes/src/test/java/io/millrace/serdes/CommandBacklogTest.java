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
}
