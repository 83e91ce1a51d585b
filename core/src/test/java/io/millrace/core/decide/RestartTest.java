package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.EXECUTION_ID;
import static io.millrace.core.decide.ExecutionDriver.RETENTION;
import static io.millrace.core.decide.ExecutionDriver.dispatchedTaskIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.RestartExecution;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Restart of a FAILED or KILLED execution, decided one command at a time: from its failed runs, keeping the rest. */
class RestartTest {

    private static String flow(String tasks) {
        return "id: f\nnamespace: io.millrace.tests\n" + tasks;
    }

    private static List<State> states(List<StateHistory> histories) {
        return histories.stream().map(StateHistory::state).toList();
    }

    @Test
    void shouldRunTheFailedTaskAgainWithANewAttemptAndKeepWhatSucceeded() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - {id: a, type: log, message: m}
                  - {id: b, type: log, message: m}
                  - {id: c, type: log, message: m}
                """));
        driver.create();
        driver.succeed("a");
        driver.fail("b");
        assertThat(driver.execution().state()).isEqualTo(State.FAILED);

        // when
        var restarted = driver.advance(Duration.ofMinutes(1)).restart();

        // then
        assertThat(restarted.rejection()).isEmpty();
        assertThat(dispatchedTaskIds(restarted)).containsExactly("b");
        assertThat(driver.currentAttempt("b")).isEqualTo(2);
        assertThat(driver.execution().error()).isNull();
        driver.succeed("b");
        driver.succeed("c");
        assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
        assertThat(states(driver.execution().histories())).containsExactly(State.CREATED, State.RUNNING, State.FAILED,
                State.RESTARTED, State.RUNNING, State.SUCCESS);
        assertThat(driver.run("a").attempts()).hasSize(1);
        assertThat(driver.run("b").attempts()).extracting(a -> a.state()).containsExactly(State.FAILED, State.SUCCESS);
    }

    @Test
    void shouldReopenTheFlowablesAroundAFailedTaskAndRunTheirErrorsOnlyIfItFailsAgain() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - id: seq
                    type: io.kestra.plugin.core.flow.Sequential
                    tasks:
                      - {id: x, type: log, message: m}
                      - {id: y, type: log, message: m}
                    errors:
                      - {id: handle, type: log, message: m}
                  - {id: z, type: log, message: m}
                errors:
                  - {id: alert, type: log, message: m}
                finally:
                  - {id: cleanup, type: log, message: m}
                """));
        driver.create();
        driver.end(driver.runOf("x"), State.SUCCESS);
        driver.end(driver.runOf("y"), State.FAILED);
        driver.end(driver.runOf("handle"), State.SUCCESS);
        driver.succeed("alert");
        driver.succeed("cleanup");
        assertThat(driver.execution().state()).isEqualTo(State.FAILED);

        // when
        var restarted = driver.restart();

        // then: y again inside seq's new attempt; x kept; the branches wait
        assertThat(dispatchedTaskIds(restarted)).containsExactly("y");
        assertThat(driver.run("seq").state()).isEqualTo(State.RUNNING);
        assertThat(driver.run("seq").attempts()).hasSize(2);
        assertThat(driver.runOf("handle").state()).isEqualTo(State.CREATED);
        assertThat(driver.run("alert").state()).isEqualTo(State.CREATED);

        // when: y fails again, its flowable's errors run again; then the flow's
        var handled = driver.end(driver.runOf("y"), State.FAILED);
        assertThat(dispatchedTaskIds(handled)).containsExactly("handle");
        driver.end(driver.runOf("handle"), State.SUCCESS);
        assertThat(driver.run("alert").attempts()).hasSize(2);
        driver.succeed("alert");
        driver.succeed("cleanup");

        // then
        assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        assertThat(driver.runOf("x").attempts()).hasSize(1);

        // when: restarted again, and this time y succeeds
        driver.advance(Duration.ofSeconds(1)).restart();
        driver.end(driver.runOf("y"), State.SUCCESS);
        driver.succeed("z");
        var ended = driver.succeed("cleanup");

        // then: the errors branches were not needed and end SKIPPED; finally ran again
        assertThat(ended.rejection()).isEmpty();
        assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
        assertThat(driver.runOf("handle").state()).isEqualTo(State.SKIPPED);
        assertThat(driver.run("alert").state()).isEqualTo(State.SKIPPED);
        assertThat(driver.run("cleanup").attempts()).hasSize(3);
        assertThat(driver.execution().taskRuns()).extracting(TaskRun::state).doesNotContain(State.CREATED);
    }

    @Test
    void shouldRestartAKilledExecutionFromItsKilledRuns() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - id: par
                    type: io.kestra.plugin.core.flow.Parallel
                    tasks:
                      - {id: p1, type: log, message: m}
                      - {id: p2, type: log, message: m}
                """));
        driver.create();
        driver.end(driver.runOf("p1"), State.SUCCESS);
        driver.kill();
        assertThat(driver.execution().state()).isEqualTo(State.KILLED);

        // when
        var restarted = driver.restart();

        // then
        assertThat(dispatchedTaskIds(restarted)).containsExactly("p2");
        driver.end(driver.runOf("p2"), State.SUCCESS);
        assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
        assertThat(driver.runOf("p1").attempts()).hasSize(1);
    }

    @Test
    void shouldRefuseToRestartAnExecutionThatDidNotFailAndARestartSentTwice() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - {id: a, type: log, message: m}
                """));
        driver.create();

        // when / then: running
        assertThat(driver.restart().rejection()).hasValueSatisfying(r -> {
            assertThat(r.kind()).isEqualTo(Rejection.Kind.STALE);
            assertThat(r.reason()).contains("Expected a FAILED or KILLED execution to restart").contains("RUNNING");
        });

        // given: failed, restarted, failed again
        driver.fail("a");
        var request = new RestartExecution(EXECUTION_ID, driver.now());
        driver.advance(Duration.ofSeconds(1)).decide(request);
        driver.advance(Duration.ofSeconds(1)).fail("a");

        // when: the first request again
        var duplicate = driver.decide(request);

        // then
        assertThat(duplicate.rejection()).hasValueSatisfying(r -> assertThat(r.reason()).contains("after this restart"));
        assertThat(duplicate.events()).isEmpty();
        assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        assertThat(driver.run("a").attempts()).hasSize(2);
    }

    @Test
    void shouldKeepARestartedExecutionUntilTheRetentionOfItsLastEnd() {
        // given: failed at T0, restarted and failed again a minute later
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - {id: a, type: log, message: m}
                """));
        driver.create();
        driver.fail("a");
        var firstPurge = Timer.purge(EXECUTION_ID, driver.now().plus(RETENTION));
        var restarted = driver.advance(Duration.ofMinutes(1)).restart();
        assertThat(restarted.effects()).contains(new Effect.CancelTimer(firstPurge));
        var failedAgain = driver.fail("a");
        var secondPurge = Timer.purge(EXECUTION_ID, 1, driver.now().plus(RETENTION));
        assertThat(failedAgain.effects()).contains(new Effect.ScheduleTimer(secondPurge));

        // when: the first end's timer fires anyway (its cancel lost in a crash)
        var early = driver.advance(RETENTION).decide(new TimerFired(firstPurge, driver.now()));

        // then
        assertThat(early.rejection()).hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(Rejection.Kind.STALE));
        assertThat(driver.state().execution()).isPresent();

        // when
        var purged = driver.advance(Duration.ofMinutes(1)).decide(new TimerFired(secondPurge, driver.now()));

        // then
        assertThat(purged.rejection()).isEmpty();
        assertThat(driver.state().execution()).isEmpty();
    }
}
