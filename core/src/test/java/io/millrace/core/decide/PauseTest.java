package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.EXECUTION_ID;
import static io.millrace.core.decide.ExecutionDriver.T0;
import static io.millrace.core.decide.ExecutionDriver.dispatchedTaskIds;
import static io.millrace.core.decide.ExecutionDriver.scheduledTimers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.command.PauseExecution;
import io.millrace.core.command.ResumeExecution;
import io.millrace.core.command.Timer;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import io.millrace.core.flow.Pause;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Pause and resume, decided one command at a time: by a call, by a delay, failed by a timeout, and paused by a call. */
class PauseTest {

    private static String flow(String tasks) {
        return "id: f\nnamespace: io.millrace.tests\n" + tasks;
    }

    private static List<State> history(ExecutionDriver driver, String taskId) {
        return driver.runOf(taskId).histories().stream().map(StateHistory::state).toList();
    }

    private static Decision resume(ExecutionDriver driver, Map<String, Object> inputs) {
        return driver.decide(new ResumeExecution(EXECUTION_ID, null, inputs, driver.now()));
    }

    @Nested
    class ByACall {

        @Test
        void shouldHoldTheExecutionPausedUntilResumedThenGoOn() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: pause
                        type: io.kestra.plugin.core.flow.Pause
                      - {id: last, type: return, format: "{{task.id}}"}
                    """));

            // when
            var created = driver.create();

            // then
            assertThat(driver.execution().state()).isEqualTo(State.PAUSED);
            assertThat(driver.runOf("pause").state()).isEqualTo(State.PAUSED);
            assertThat(dispatchedTaskIds(created)).isEmpty();
            assertThat(scheduledTimers(created)).as("no delay, no timeout: it waits for a call").isEmpty();

            // when
            var resumed = resume(driver.advance(Duration.ofMinutes(5)), Map.of());

            // then
            assertThat(dispatchedTaskIds(resumed)).containsExactly("last");
            assertThat(driver.execution().state()).isEqualTo(State.RUNNING);
            assertThat(history(driver, "pause")).containsExactly(State.CREATED, State.RUNNING, State.PAUSED,
                    State.RUNNING, State.SUCCESS);
            driver.succeed("last");
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
            assertThat(driver.execution().histories()).extracting(StateHistory::state)
                    .containsExactly(State.CREATED, State.RUNNING, State.PAUSED, State.RUNNING, State.SUCCESS);
        }

        @Test
        void shouldGiveTheResumeInputsResolvedAsOutputsAndRefuseInputsThatDoNotResolve() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: pause
                        type: pause
                        onResume:
                          - {id: approved, type: BOOLEAN}
                          - {id: reason, type: STRING, defaults: fine}
                          - {id: asked, type: STRING, required: false}
                      - {id: last, type: return, format: "{{ outputs.pause.onResume.reason }}"}
                    """));
            driver.create();

            // when: a required input is missing, one is not declared
            var refused = resume(driver, Map.of("extra", "x"));

            // then: nothing changed
            assertThat(refused.rejection()).hasValueSatisfying(r -> {
                assertThat(r.kind()).isEqualTo(Rejection.Kind.INVALID);
                assertThat(r.reason()).contains("'approved'").contains("'extra'");
            });
            assertThat(refused.events()).isEmpty();
            assertThat(driver.execution().state()).isEqualTo(State.PAUSED);

            // when
            var resumed = resume(driver, Map.of("approved", "true"));

            // then
            assertThat(dispatchedTaskIds(resumed)).containsExactly("last");
            assertThat(driver.state().outputs(driver.runOf("pause").id()))
                    .isEqualTo(Map.of("onResume", Map.of("approved", true, "reason", "fine")));
        }

        @Test
        void shouldRefuseAResumeOfAnExecutionOrRunThatNoLongerWaits() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: pause, type: pause}
                      - {id: last, type: log, message: m}
                    """));
            driver.create();
            String pauseRun = driver.runOf("pause").id();
            resume(driver, Map.of());

            // when: the same resume again (sent twice), and one naming the run
            var again = resume(driver, Map.of());
            var named = driver.decide(new ResumeExecution(EXECUTION_ID, pauseRun, Map.of(), driver.now()));

            // then
            assertThat(again.rejection()).hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(Rejection.Kind.STALE));
            assertThat(named.rejection()).hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(Rejection.Kind.STALE));
            assertThat(again.events()).isEmpty();
            assertThat(driver.runs("last")).hasSize(1);
        }

        @Test
        void shouldStayPausedWhileAnotherPauseOfAParallelStillWaits() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: both
                        type: parallel
                        tasks:
                          - {id: p1, type: pause}
                          - {id: p2, type: pause}
                      - {id: last, type: log, message: m}
                    """));
            driver.create();
            assertThat(driver.runOf("p1").state()).isEqualTo(State.PAUSED);

            // when: the first resumed, the second pauses in its turn
            resume(driver, Map.of());

            // then
            assertThat(driver.runOf("p1").state()).isEqualTo(State.SUCCESS);
            assertThat(driver.runOf("p2").state()).isEqualTo(State.PAUSED);
            assertThat(driver.execution().state()).isEqualTo(State.PAUSED);

            // when
            var second = resume(driver, Map.of());

            // then
            assertThat(dispatchedTaskIds(second)).containsExactly("last");
            assertThat(driver.execution().state()).isEqualTo(State.RUNNING);
        }
    }

    @Nested
    class ByTime {

        @Test
        void shouldResumeByItselfAfterItsDelayThenRunItsNestedTasks() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: pause
                        type: io.kestra.plugin.core.flow.Pause
                        delay: PT1S
                        tasks:
                          - {id: subtask, type: log, message: m}
                      - {id: last, type: return, format: x}
                    """));

            // when
            var created = driver.create();

            // then
            assertThat(scheduledTimers(created)).containsExactly(new Timer(EXECUTION_ID, Timer.Kind.RESUME,
                    driver.runOf("pause").id(), 1, T0.plusSeconds(1)));
            assertThat(driver.reemit().effects()).as("a stored pause implies its timer")
                    .contains(new Effect.ScheduleTimer(scheduledTimers(created).getFirst()));

            // when
            var woke = driver.advance(Duration.ofSeconds(1)).fire(Timer.Kind.RESUME, driver.runOf("pause"));

            // then
            assertThat(dispatchedTaskIds(woke)).containsExactly("subtask");
            assertThat(driver.execution().state()).isEqualTo(State.RUNNING);
            driver.end(driver.runOf("subtask"), State.SUCCESS);
            driver.succeed("last");
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
            assertThat(history(driver, "pause")).containsExactly(State.CREATED, State.RUNNING, State.PAUSED,
                    State.RUNNING, State.SUCCESS);
        }

        @Test
        void shouldFailWhenItsTimeoutPassesBeforeAResume() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: pause
                        type: io.kestra.plugin.core.flow.Pause
                        timeout: PT1S
                        tasks:
                          - {id: ko, type: log, message: m}
                      - {id: last, type: return, format: x}
                    """));
            driver.create();

            // when
            driver.advance(Duration.ofSeconds(1)).fire(Timer.Kind.RESUME, driver.runOf("pause"));

            // then
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
            assertThat(driver.runOf("pause").error()).contains("timeout of PT1S");
            assertThat(history(driver, "pause")).containsExactly(State.CREATED, State.RUNNING, State.PAUSED, State.FAILED);
            assertThat(driver.taskIdsRun()).containsExactly("pause");
        }

        @Test
        void shouldCancelItsTimerWhenResumedFirstAndIgnoreItIfItFiresStill() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: pause, type: pause, timeout: PT1H}
                      - {id: last, type: log, message: m}
                    """));
            Timer timer = scheduledTimers(driver.create()).getFirst();

            // when
            var resumed = resume(driver, Map.of());

            // then
            assertThat(resumed.effects()).contains(new Effect.CancelTimer(timer));

            // when: the timer fires anyway (its cancel was lost)
            var late = driver.advance(Duration.ofHours(1)).decide(new io.millrace.core.command.TimerFired(timer,
                    driver.now()));

            // then
            assertThat(late.events()).isEmpty();
            assertThat(driver.runOf("pause").state()).isEqualTo(State.SUCCESS);
        }
    }

    @Nested
    class PausedByACall {

        @Test
        void shouldStartNothingWhilePausedAndGoOnWhenResumed() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: a, type: log, message: m}
                      - {id: b, type: log, message: m}
                    """));
            driver.create();

            // when
            var paused = driver.decide(new PauseExecution(EXECUTION_ID, driver.now()));
            var again = driver.decide(new PauseExecution(EXECUTION_ID, driver.now()));
            var aEnded = driver.succeed("a");

            // then: a's result is kept, b waits
            assertThat(paused.events()).isNotEmpty();
            assertThat(again.rejection()).hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(Rejection.Kind.STALE));
            assertThat(dispatchedTaskIds(aEnded)).isEmpty();
            assertThat(driver.run("a").state()).isEqualTo(State.SUCCESS);
            assertThat(driver.execution().state()).isEqualTo(State.PAUSED);
            assertThat(resume(driver, Map.of("x", 1)).rejection()).as("no Pause task: no inputs")
                    .hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(Rejection.Kind.INVALID));

            // when
            var resumed = resume(driver, Map.of());

            // then
            assertThat(dispatchedTaskIds(resumed)).containsExactly("b");
            driver.succeed("b");
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
        }

        @Test
        void shouldKillAPausedExecutionAndIgnoreItsTimerAfterwards() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: pause, type: pause, delay: PT1M}
                    """));
            driver.create();

            // when
            driver.kill();
            var late = driver.advance(Duration.ofMinutes(1)).fire(Timer.Kind.RESUME, driver.runOf("pause"));

            // then
            assertThat(driver.execution().state()).isEqualTo(State.KILLED);
            assertThat(driver.runOf("pause").state()).isEqualTo(State.KILLED);
            assertThat(late.rejection()).hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(Rejection.Kind.STALE));
        }
    }

    @Nested
    class Parsing {

        @Test
        void shouldReadTimeoutAsThePausesOwnAndPauseDurationAsTheDelay() throws FlowValidationException {
            // when
            var flow = new FlowParser().parse(flow("""
                    tasks:
                      - {id: p, type: io.kestra.core.tasks.flows.Pause, pauseDuration: PT2S, timeout: PT5S}
                    """));

            // then
            Pause pause = (Pause) flow.tasks().getFirst();
            assertThat(pause.delay()).isEqualTo(Duration.ofSeconds(2));
            assertThat(pause.timeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(pause.options().timeout()).as("not a time limit on its run").isNull();
        }

        @Test
        void shouldRefuseBothDelaysAndABadOnResumeInput() {
            assertThatThrownBy(() -> new FlowParser().parse(flow("""
                    tasks:
                      - id: p
                        type: pause
                        delay: PT1S
                        pauseDuration: PT2S
                        onResume:
                          - {id: x, type: NOPE}
                    """)))
                    .isInstanceOf(FlowValidationException.class)
                    .hasMessageContaining("both are set")
                    .hasMessageContaining("Unknown input type 'NOPE' at tasks[0] (task 'p').onResume[0].type");
        }
    }
}
