package io.millrace.core.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.command.AcquireSlot;
import io.millrace.core.command.ReleaseSlot;
import io.millrace.core.command.SlotAnswer;
import io.millrace.core.command.SlotAnswer.Answer;
import io.millrace.core.flow.Concurrency.Behavior;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A flow's concurrency slots: places up to the limit, a queue in order, and every command safe to receive twice. */
class SlotKeeperTest {
    private static final Instant AT = Instant.parse("2026-11-27T10:00:00Z");
    private static final String FLOW = "company.team/limited";

    private final SlotKeeper keeper = new SlotKeeper(2);
    private Slots slots = Slots.EMPTY;

    private List<SlotAnswer> acquire(String id, int limit, Behavior behavior) {
        var outcome = keeper.decide(slots, new AcquireSlot(FLOW, id, limit, behavior, AT));
        slots = outcome.slots();
        return outcome.answers();
    }

    private List<SlotAnswer> release(String id) {
        var outcome = keeper.decide(slots, new ReleaseSlot(FLOW, id, AT));
        slots = outcome.slots();
        return outcome.answers();
    }

    private static List<String> said(List<SlotAnswer> answers) {
        return answers.stream().map(a -> a.executionId() + " " + a.answer()).toList();
    }

    @Test
    void shouldGrantUpToTheLimitThenQueueAndHandEachFreedPlaceToTheOldestQueued() {
        // when
        assertThat(said(acquire("e1", 2, Behavior.QUEUE))).containsExactly("e1 GRANTED");
        assertThat(said(acquire("e2", 2, Behavior.QUEUE))).containsExactly("e2 GRANTED");
        assertThat(said(acquire("e3", 2, Behavior.QUEUE))).containsExactly("e3 QUEUED");
        assertThat(said(acquire("e4", 2, Behavior.QUEUE))).containsExactly("e4 QUEUED");

        // then
        assertThat(slots.running()).containsExactly("e1", "e2");
        assertThat(slots.queued()).containsExactly("e3", "e4");

        // when / then: a place freed goes to the oldest; a queued execution that ends leaves the queue
        assertThat(said(release("e2"))).containsExactly("e3 GRANTED");
        assertThat(said(release("e4"))).isEmpty();
        assertThat(slots).isEqualTo(new Slots(2, List.of("e1", "e3"), List.of()));
        release("e1");
        release("e3");
        assertThat(slots.unused()).isTrue();
    }

    @Test
    void shouldAnswerARequestSentTwiceAsTheFirstTime() {
        // given
        acquire("e1", 1, Behavior.QUEUE);
        acquire("e2", 1, Behavior.QUEUE);
        Slots before = slots;

        // when / then
        assertThat(said(acquire("e1", 1, Behavior.QUEUE))).containsExactly("e1 GRANTED");
        assertThat(said(acquire("e2", 1, Behavior.QUEUE))).containsExactly("e2 QUEUED");
        assertThat(slots).isEqualTo(before);
    }

    @Test
    void shouldTellEveryHolderAgainOnAReleaseOfAnExecutionHoldingNoPlace() {
        // given: e2 got e1's place, and that answer may have been lost in a crash before the release was committed
        acquire("e1", 1, Behavior.QUEUE);
        acquire("e2", 1, Behavior.QUEUE);
        assertThat(said(release("e1"))).containsExactly("e2 GRANTED");

        // when: the same release again
        var again = release("e1");

        // then
        assertThat(said(again)).containsExactly("e2 GRANTED");
        assertThat(slots.running()).containsExactly("e2");
    }

    @Test
    void shouldCancelOrFailPastTheLimitAsTheFlowSays() {
        // given
        acquire("e1", 1, Behavior.CANCEL);

        // when / then
        assertThat(acquire("e2", 1, Behavior.CANCEL)).singleElement().satisfies(a -> {
            assertThat(a.answer()).isEqualTo(Answer.CANCELLED);
            assertThat(a.reason()).isEqualTo("Flow company.team/limited has reached its concurrency limit of 1");
        });
        assertThat(said(acquire("e3", 1, Behavior.FAIL))).containsExactly("e3 FAILED");
        assertThat(slots.running()).containsExactly("e1");
        assertThat(slots.queued()).isEmpty();
    }

    @Test
    void shouldFailARequestPastTheQueueLimit() {
        // given: one running, two queued (the keeper's max-queued-executions)
        acquire("e1", 1, Behavior.QUEUE);
        acquire("e2", 1, Behavior.QUEUE);
        acquire("e3", 1, Behavior.QUEUE);

        // when
        var answers = acquire("e4", 1, Behavior.QUEUE);

        // then
        assertThat(answers).singleElement().satisfies(a -> {
            assertThat(a.answer()).isEqualTo(Answer.FAILED);
            assertThat(a.reason()).contains("max-queued-executions").contains("2 executions wait");
        });
        assertThat(slots.queued()).containsExactly("e2", "e3");
    }

    @Test
    void shouldHandTheQueuedThePlacesOfALimitThatGrew() {
        // given
        acquire("e1", 1, Behavior.QUEUE);
        acquire("e2", 1, Behavior.QUEUE);
        acquire("e3", 1, Behavior.QUEUE);

        // when: a new revision of the flow allows three
        var answers = acquire("e4", 3, Behavior.QUEUE);

        // then: the queued first, in order, then the new one behind them
        assertThat(said(answers)).containsExactly("e2 GRANTED", "e3 GRANTED", "e4 QUEUED");
        assertThat(slots.running()).containsExactly("e1", "e2", "e3");
    }

    @Test
    void shouldRefuseANegativeQueueLimit() {
        assertThatThrownBy(() -> new SlotKeeper(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-queued-executions");
    }
}
