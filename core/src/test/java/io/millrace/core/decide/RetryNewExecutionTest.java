package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.EXECUTION_ID;
import static io.millrace.core.decide.ExecutionDriver.scheduledTimers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.State;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A retry's CREATE_NEW_EXECUTION, decided one command at a time: RETRIED, then a new execution, until the last. */
class RetryNewExecutionTest {
    private static final String FLOW = """
            id: retried
            namespace: company.team
            labels: {team: data}
            inputs:
              - {id: n, type: INT}
            tasks:
              - {id: first, type: log, message: m}
              - id: flaky
                type: log
                message: m
                retry: {type: constant, interval: PT1S, maxAttempt: 3, behavior: CREATE_NEW_EXECUTION}
            """;

    private static List<Command> sent(Decision decision) {
        return decision.effects().stream().filter(Effect.SendCommand.class::isInstance)
                .map(e -> ((Effect.SendCommand) e).command()).toList();
    }

    @Test
    void shouldEndRetriedThenStartANewExecutionOfTheChainAfterTheWait() {
        // given
        var driver = ExecutionDriver.flow(FLOW);
        driver.create(Map.of("n", 7));
        driver.succeed("first");

        // when
        var failed = driver.fail("flaky");

        // then: RETRIED, the run too, with the wait before the new execution
        assertThat(driver.execution().state()).isEqualTo(State.RETRIED);
        assertThat(driver.run("flaky").state()).isEqualTo(State.RETRIED);
        assertThat(driver.run("flaky").attempts()).hasSize(1);
        Timer wait = new Timer(EXECUTION_ID, Timer.Kind.RETRY_EXECUTION, "", 0, driver.now().plusSeconds(1));
        assertThat(scheduledTimers(failed)).contains(wait);
        assertThat(scheduledTimers(driver.reemit())).as("after a crash").contains(wait);

        // when
        var due = driver.advance(Duration.ofSeconds(1)).decide(new TimerFired(wait, driver.now()));

        // then: the same flow revision, inputs, labels and trigger, the chain named
        assertThat(due.events()).isEmpty();
        assertThat(sent(due)).singleElement().isInstanceOfSatisfying(CreateExecution.class, next -> {
            assertThat(next.executionId()).isNotEqualTo(EXECUTION_ID);
            assertThat(next.revision()).isEqualTo(driver.execution().flowRevision());
            assertThat(next.inputs()).isEqualTo(Map.of("n", 7L));
            assertThat(next.labels()).containsEntry("team", "data")
                    .containsEntry("system.correlationId", EXECUTION_ID);
            assertThat(next.lineage()).isEqualTo(new Lineage(EXECUTION_ID, 2));
        });
        assertThat(sent(driver.decide(new TimerFired(wait, driver.now())))).as("fired twice: the same start")
                .isEqualTo(sent(due));
    }

    @Test
    void shouldPassAKillOfARetriedExecutionOnToTheExecutionThatRetriesIt() {
        // given: RETRIED, its next execution due in a second
        var driver = ExecutionDriver.flow(FLOW);
        driver.create(Map.of("n", 7));
        driver.succeed("first");
        driver.fail("flaky");
        Timer wait = new Timer(EXECUTION_ID, Timer.Kind.RETRY_EXECUTION, "", 0, driver.now().plusSeconds(1));
        String next = ((CreateExecution) sent(driver.advance(Duration.ofSeconds(1))
                .decide(new TimerFired(wait, driver.now()))).getFirst()).executionId();

        // when: killed, as a Subflow run's kill reaches its child
        var killed = driver.kill();

        // then: the next start is called off and the next execution, if it started, is killed; this one stays RETRIED
        assertThat(killed.rejection()).isEmpty();
        assertThat(killed.events()).isEmpty();
        assertThat(killed.effects()).contains(new Effect.CancelTimer(wait));
        assertThat(sent(killed)).singleElement().isInstanceOfSatisfying(KillExecution.class,
                kill -> assertThat(kill.executionId()).isEqualTo(next));
        assertThat(driver.execution().state()).isEqualTo(State.RETRIED);
    }

    @Test
    void shouldFailTheLastExecutionOfTheChainAsAnyFailure() {
        // given: the third execution of the chain
        var driver = ExecutionDriver.flow(FLOW);
        driver.decide(new CreateExecution(EXECUTION_ID, "company.team", "retried", null, Map.of("n", 1), Map.of(),
                driver.now(), null, new Lineage("exec-0", 3)));
        driver.succeed("first");

        // when
        var failed = driver.fail("flaky");

        // then
        assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        assertThat(driver.execution().lineage()).isEqualTo(new Lineage("exec-0", 3));
        assertThat(scheduledTimers(failed)).extracting(Timer::kind).doesNotContain(Timer.Kind.RETRY_EXECUTION);
    }

    @Test
    void shouldRefuseAnUnknownRetryBehavior() {
        assertThatThrownBy(() -> new FlowParser().parse(FLOW.replace("CREATE_NEW_EXECUTION", "LATER")))
                .isInstanceOf(FlowValidationException.class)
                .hasMessageContaining("behavior to be RETRY_FAILED_TASK or CREATE_NEW_EXECUTION, but found 'LATER'");
    }
}
