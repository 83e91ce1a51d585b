package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.EXECUTION_ID;
import static io.millrace.core.decide.ExecutionDriver.dispatchedTaskIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.AcquireSlot;
import io.millrace.core.command.Command;
import io.millrace.core.command.ReleaseSlot;
import io.millrace.core.command.SlotAnswer;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.flow.Concurrency;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An execution of a flow with a concurrency limit, decided one command at a time: it asks, waits, runs, gives back. */
class ConcurrencyTest {
    private static final String LIMITED = """
            id: limited
            namespace: company.team
            concurrency:
              limit: 2
            tasks:
              - {id: a, type: log, message: m}
            """;
    private static final String FLOW_KEY = "company.team/limited";

    private static List<Command> sent(Decision decision) {
        return decision.effects().stream().filter(Effect.SendCommand.class::isInstance)
                .map(e -> ((Effect.SendCommand) e).command()).toList();
    }

    private static Decision answer(ExecutionDriver driver, SlotAnswer.Answer answer) {
        return driver.decide(new SlotAnswer(EXECUTION_ID, FLOW_KEY, answer, answer == SlotAnswer.Answer.GRANTED
                || answer == SlotAnswer.Answer.QUEUED ? null : "Flow company.team/limited has reached its limit", driver.now()));
    }

    private static List<State> history(ExecutionDriver driver) {
        return driver.execution().histories().stream().map(StateHistory::state).toList();
    }

    @Test
    void shouldAskForAPlaceWaitQueuedRunOnceGrantedAndGiveThePlaceBack() {
        // given
        var driver = ExecutionDriver.flow(LIMITED);

        // when
        var created = driver.create();

        // then: nothing runs before the answer
        assertThat(driver.execution().state()).isEqualTo(State.CREATED);
        assertThat(dispatchedTaskIds(created)).isEmpty();
        assertThat(sent(created)).containsExactly(new AcquireSlot(FLOW_KEY, EXECUTION_ID, 2, Concurrency.Behavior.QUEUE,
                driver.now()));
        assertThat(sent(driver.reemit())).as("asked again after a crash").containsExactly(sent(created).getFirst());

        // when / then
        answer(driver, SlotAnswer.Answer.QUEUED);
        assertThat(driver.execution().state()).isEqualTo(State.QUEUED);
        assertThat(dispatchedTaskIds(answer(driver.advance(Duration.ofSeconds(5)), SlotAnswer.Answer.GRANTED)))
                .containsExactly("a");
        assertThat(answer(driver, SlotAnswer.Answer.GRANTED).rejection()).as("an answer sent twice").isPresent();
        var ended = driver.succeed("a");

        // then
        assertThat(history(driver)).containsExactly(State.CREATED, State.QUEUED, State.RUNNING, State.SUCCESS);
        assertThat(sent(ended)).containsExactly(new ReleaseSlot(FLOW_KEY, EXECUTION_ID, driver.now()));
        assertThat(sent(driver.reemit())).as("given back again after a crash").containsExactly(sent(ended).getFirst());
    }

    @Test
    void shouldEndCancelledOrFailedWithoutRunningWhenTheSlotsSaySo() {
        for (SlotAnswer.Answer refusal : List.of(SlotAnswer.Answer.CANCELLED, SlotAnswer.Answer.FAILED)) {
            // given
            var driver = ExecutionDriver.flow(LIMITED);
            driver.create();

            // when
            var refused = answer(driver, refusal);

            // then
            assertThat(driver.execution().state()).isEqualTo(State.valueOf(refusal.name()));
            assertThat(driver.execution().error()).contains("limit");
            assertThat(driver.execution().taskRuns()).isEmpty();
            assertThat(dispatchedTaskIds(refused)).isEmpty();
        }
    }

    @Test
    void shouldGiveBackAPlaceGrantedAfterTheExecutionWasKilled() {
        // given: killed while it waited
        var driver = ExecutionDriver.flow(LIMITED);
        driver.create();
        var killed = driver.kill();
        assertThat(driver.execution().state()).isEqualTo(State.KILLED);
        assertThat(sent(killed)).containsExactly(new ReleaseSlot(FLOW_KEY, EXECUTION_ID, driver.now()));

        // when: the place comes after the kill (it was granted before the release arrived)
        var late = answer(driver, SlotAnswer.Answer.GRANTED);

        // then
        assertThat(late.events()).isEmpty();
        assertThat(sent(late)).containsExactly(new ReleaseSlot(FLOW_KEY, EXECUTION_ID, driver.now()));
    }

    @Test
    void shouldAskAgainBeforeARestartGoesOn() {
        // given
        var driver = ExecutionDriver.flow(LIMITED);
        driver.create();
        answer(driver, SlotAnswer.Answer.GRANTED);
        driver.fail("a");

        // when
        var restarted = driver.advance(Duration.ofSeconds(1)).restart();

        // then: RESTARTED, nothing runs yet
        assertThat(driver.execution().state()).isEqualTo(State.RESTARTED);
        assertThat(dispatchedTaskIds(restarted)).isEmpty();
        assertThat(sent(restarted)).singleElement().isInstanceOf(AcquireSlot.class);

        // when
        var granted = answer(driver, SlotAnswer.Answer.GRANTED);

        // then
        assertThat(dispatchedTaskIds(granted)).containsExactly("a");
        assertThat(driver.currentAttempt("a")).isEqualTo(2);
        driver.succeed("a");
        assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
    }

    @Test
    void shouldParseConcurrencyAndRefuseWhatIsNotAValidOne() throws Exception {
        // when
        var flow = new FlowParser().parse(LIMITED.replace("limit: 2", "limit: 3\n  behavior: cancel"));

        // then
        assertThat(flow.concurrency()).isEqualTo(new Concurrency(3, Concurrency.Behavior.CANCEL));
        for (String bad : List.of("limit: 0", "limit: 1001", "limit: two", "limit: 1\n  behavior: WAIT",
                "limit: 1\n  other: x")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new FlowParser().parse(LIMITED.replace("limit: 2", bad)))
                    .isInstanceOf(FlowValidationException.class)
                    .hasMessageContaining("concurrency");
        }
    }
}
