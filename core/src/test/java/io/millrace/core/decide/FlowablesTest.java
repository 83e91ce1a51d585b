package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.dispatchedTaskIds;
import static io.millrace.core.decide.ExecutionDriver.scheduledTimers;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The flowables, task options and retries, decided one command at a time. */
class FlowablesTest {

    private static String flow(String tasks) {
        return "id: f\nnamespace: io.millrace.tests\n" + tasks;
    }

    @Nested
    class Sequences {

        @Test
        void shouldRunNestedSequentialChildrenInOrderUnderTheirParent() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: seq
                        type: io.kestra.plugin.core.flow.Sequential
                        tasks:
                          - {id: a, type: return, format: a}
                          - {id: b, type: return, format: b}
                      - {id: after, type: log, message: m}
                    """));

            // when
            var created = driver.create();

            // then
            assertThat(dispatchedTaskIds(created)).containsExactly("a");
            assertThat(driver.runOf("a").parentTaskRunId()).isEqualTo(driver.runOf("seq").id());
            assertThat(driver.runOf("seq").state()).isEqualTo(State.RUNNING);
            assertThat(driver.runOf("seq").attempts()).singleElement()
                    .satisfies(a -> assertThat(a.leaseUntil()).as("a flowable holds no lease").isNull());

            // when / then
            assertThat(dispatchedTaskIds(driver.end(driver.runOf("a"), State.SUCCESS))).containsExactly("b");
            assertThat(dispatchedTaskIds(driver.end(driver.runOf("b"), State.SUCCESS))).containsExactly("after");
            assertThat(driver.runOf("seq").state()).isEqualTo(State.SUCCESS);
            driver.succeed("after");
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
            assertThat(driver.taskIdsRun()).containsExactly("seq", "a", "b", "after");
        }

        @Test
        void shouldRunLocalErrorsAndStillFailTheFlowable() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: seq
                        type: sequential
                        tasks:
                          - {id: a, type: return, format: a}
                          - {id: never, type: return, format: b}
                        errors:
                          - {id: handle, type: log, message: m}
                        finally:
                          - {id: last, type: log, message: m}
                    """));
            driver.create();

            // when
            var failed = driver.end(driver.runOf("a"), State.FAILED);

            // then
            assertThat(dispatchedTaskIds(failed)).containsExactly("handle");
            assertThat(dispatchedTaskIds(driver.end(driver.runOf("handle"), State.SUCCESS))).containsExactly("last");
            driver.end(driver.runOf("last"), State.SUCCESS);
            assertThat(driver.runOf("seq").state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().error()).isEqualTo("Task 'seq' ended FAILED: Task 'a' ended FAILED: boom");
            assertThat(driver.runs("never")).isEmpty();
        }

        @Test
        void shouldTurnAFailureInsideAllowFailureIntoAWarning() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: allow
                        type: io.kestra.plugin.core.flow.AllowFailure
                        tasks:
                          - {id: a, type: return, format: a}
                      - {id: after, type: log, message: m}
                    """));
            driver.create();

            // when
            var failed = driver.end(driver.runOf("a"), State.FAILED);

            // then
            assertThat(driver.runOf("allow").state()).isEqualTo(State.WARNING);
            assertThat(dispatchedTaskIds(failed)).containsExactly("after");
            driver.succeed("after");
            assertThat(driver.execution().state()).isEqualTo(State.WARNING);
        }
    }

    @Nested
    class Parallels {

        @Test
        void shouldStartAtMostConcurrentChildrenAndFinishRunningOnesAfterAFailure() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: par
                        type: parallel
                        concurrent: 2
                        tasks:
                          - {id: a, type: return, format: a}
                          - {id: b, type: return, format: b}
                          - {id: c, type: return, format: c}
                    """));

            // when
            var created = driver.create();

            // then
            assertThat(dispatchedTaskIds(created)).containsExactly("a", "b");

            // when: one fails while the other still runs
            var failed = driver.end(driver.runOf("a"), State.FAILED);

            // then: nothing new starts, and the parallel waits for b
            assertThat(dispatchedTaskIds(failed)).isEmpty();
            assertThat(driver.runOf("par").state()).isEqualTo(State.RUNNING);
            driver.end(driver.runOf("b"), State.SUCCESS);
            assertThat(driver.runOf("par").state()).isEqualTo(State.FAILED);
            assertThat(driver.runs("c")).isEmpty();
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        }
    }

    @Nested
    class Loops {

        @Test
        void shouldGiveEveryIterationItsOwnRunsEvenForEqualValues() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: each
                        type: io.kestra.plugin.core.flow.ForEach
                        values: ["a", "a"]
                        tasks:
                          - {id: one, type: return, format: "{{ taskrun.value }}"}
                          - {id: two, type: return, format: "{{ taskrun.value }}"}
                    """));

            // when
            driver.create();
            driver.end(driver.runOf("one"), State.SUCCESS);
            driver.end(driver.runOf("two"), State.SUCCESS);

            // then: the second iteration starts only when the first is done (concurrencyLimit 1)
            List<TaskRun> ones = driver.runs("one");
            assertThat(ones).extracting(TaskRun::value, TaskRun::iteration).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("a", 0), org.assertj.core.groups.Tuple.tuple("a", 1));
            assertThat(ones.get(0).id()).isNotEqualTo(ones.get(1).id());
            assertThat(driver.runs("two")).hasSize(1);

            // when
            driver.end(ones.get(1), State.SUCCESS);
            driver.end(driver.runs("two").get(1), State.SUCCESS);

            // then
            assertThat(driver.runOf("each").state()).isEqualTo(State.SUCCESS);
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
        }

        @Test
        void shouldStartAnUnlimitedLoopInStepsOfAtMostTheFlowableConcurrencyLimit() {
            // given: a loop of 5 values without a limit of its own, on an executor that runs at most 2 lanes at once
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: each
                        type: io.kestra.plugin.core.flow.ForEach
                        values: [1, 2, 3, 4, 5]
                        concurrencyLimit: 0
                        tasks:
                          - {id: one, type: return, format: "{{ taskrun.value }}"}
                    """), new DeciderSettings(ExecutionDriver.LEASE, 3, ExecutionDriver.RETENTION, 100, 2));

            // when
            var created = driver.create();

            // then: two start, and each that ends lets the next one start
            assertThat(dispatchedTaskIds(created)).containsExactly("one", "one");
            assertThat(dispatchedTaskIds(driver.end(driver.runs("one").getFirst(), State.SUCCESS))).containsExactly("one");
            for (TaskRun run : driver.runs("one").subList(1, 3)) {
                driver.end(run, State.SUCCESS);
            }
            driver.runs("one").subList(3, 5).forEach(run -> driver.end(run, State.SUCCESS));
            assertThat(driver.runs("one")).hasSize(5);
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
        }

        @Test
        void shouldFailTheRunPastTheExecutionsTaskRunLimitAndTheExecutionWithIt() {
            // given: at most 3 task runs in one execution, and a loop that needs 5
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: each
                        type: io.kestra.plugin.core.flow.ForEach
                        values: [1, 2, 3, 4]
                        tasks:
                          - {id: one, type: return, format: "{{ taskrun.value }}"}
                    """), new DeciderSettings(ExecutionDriver.LEASE, 3, ExecutionDriver.RETENTION, 3, 1_000));
            driver.create();

            // when
            driver.end(driver.runs("one").get(0), State.SUCCESS);
            driver.end(driver.runs("one").get(1), State.SUCCESS);

            // then
            TaskRun third = driver.runs("one").get(2);
            assertThat(third.state()).isEqualTo(State.FAILED);
            assertThat(third.error()).isEqualTo("Expected at most 3 task runs in one execution (max-task-runs), but this"
                    + " one would be run 4");
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        }

        @Test
        void shouldRunIterationsConcurrentlyUpToTheLimitFromAJsonString() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: each
                        type: for-each
                        values: '{{ "[1, 2, 3]" }}'
                        concurrencyLimit: 2
                        tasks:
                          - {id: one, type: return, format: "{{ taskrun.value }}"}
                    """));

            // when
            var created = driver.create();

            // then
            assertThat(dispatchedTaskIds(created)).containsExactly("one", "one");
            assertThat(driver.runs("one")).extracting(TaskRun::value).containsExactly("1", "2");

            // when / then
            assertThat(dispatchedTaskIds(driver.end(driver.runs("one").getFirst(), State.SUCCESS))).containsExactly("one");
            assertThat(driver.runs("one")).extracting(TaskRun::value).containsExactly("1", "2", "3");
        }

        @Test
        void shouldSucceedAtOnceOverNoValuesAndFailOverValuesThatAreNoList() {
            // given
            var empty = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: each, type: for-each, values: "[]", tasks: [{id: one, type: log, message: m}]}
                    """));
            var broken = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: each, type: for-each, values: "{{ 'nope' }}", tasks: [{id: one, type: log, message: m}]}
                    """));

            // when
            empty.create();
            broken.create();

            // then
            assertThat(empty.execution().state()).isEqualTo(State.SUCCESS);
            assertThat(broken.execution().state()).isEqualTo(State.FAILED);
            assertThat(broken.runOf("each").error()).contains("to render to a JSON array");
        }

        @Test
        void shouldGiveATaskInsideNestedLoopsItsParentsValues() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: outer
                        type: for-each
                        values: ["x"]
                        tasks:
                          - id: inner
                            type: for-each
                            values: ["y"]
                            tasks:
                              - {id: leaf, type: return, format: "{{ parents[0].taskrun.value }}"}
                    """));
            driver.create();
            TaskRun leaf = driver.runOf("leaf");

            // when
            Map<String, Object> variables = Contexts.dispatch(driver.execution(), driver.state(), driver.flow(), leaf,
                    driver.flow().task("leaf").orElseThrow());

            // then
            assertThat(variables.get("taskrun")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("value", "y");
            assertThat(variables.get("parents")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                    .containsExactly(Map.of("taskrun", Map.of("value", "x")));
            assertThat(variables.get("parent")).isEqualTo(Map.of("taskrun", Map.of("value", "x")));
        }

        @Test
        void shouldNestOutputsUnderTheLoopValues() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: outer
                        type: for-each
                        values: ["x"]
                        tasks:
                          - id: inner
                            type: for-each
                            values: ["y"]
                            tasks:
                              - {id: leaf, type: return, format: v}
                    outputs:
                      - id: got
                        value: "{{ outputs.leaf.x.y.value }}"
                    """));
            driver.create();

            // when
            driver.decide(new io.millrace.core.command.TaskResult(ExecutionDriver.EXECUTION_ID, driver.runOf("leaf").id(), 1,
                    State.SUCCESS, Map.of("value", "deep"), null, "w", driver.now()));

            // then
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
            assertThat(driver.execution().outputs()).containsEntry("got", "deep");
        }
    }

    @Nested
    class Branches {

        @Test
        void shouldRunThenOrElseByTheCondition() {
            // given
            String yaml = flow("""
                    inputs:
                      - {id: go, type: BOOLEAN}
                    tasks:
                      - id: if
                        type: io.kestra.plugin.core.flow.If
                        condition: "{{ inputs.go }}"
                        then:
                          - {id: chosen, type: log, message: m}
                        else:
                          - {id: other, type: log, message: m}
                    """);
            var yes = ExecutionDriver.flow(yaml);
            var no = ExecutionDriver.flow(yaml);

            // when / then
            assertThat(dispatchedTaskIds(yes.create(Map.of("go", true)))).containsExactly("chosen");
            assertThat(dispatchedTaskIds(no.create(Map.of("go", false)))).containsExactly("other");
        }

        @Test
        void shouldRunTheMatchingCaseOrTheDefaultsAndFailWithNeither() {
            // given
            String yaml = flow("""
                    inputs:
                      - {id: v, type: STRING}
                    tasks:
                      - id: sw
                        type: io.kestra.plugin.core.flow.Switch
                        value: "{{ inputs.v }}"
                        cases:
                          "1":
                            - {id: one, type: log, message: m}
                    """);
            var match = ExecutionDriver.flow(yaml);
            var none = ExecutionDriver.flow(yaml);

            // when
            match.create(Map.of("v", "1"));
            match.end(match.runOf("one"), State.SUCCESS);
            none.create(Map.of("v", "2"));

            // then
            assertThat(match.execution().state()).isEqualTo(State.SUCCESS);
            assertThat(match.state().outputs(match.runOf("sw").id())).isEqualTo(Map.of("value", "1", "defaults", false));
            assertThat(none.execution().state()).isEqualTo(State.FAILED);
            assertThat(none.runOf("sw").error()).contains("matches none of the cases");
        }
    }

    @Nested
    class Options {

        @Test
        void shouldSkipARunWhoseRunIfIsFalseAndCreateNoneForADisabledTask() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: skipped, type: log, message: m, runIf: "{{ 1 == 2 }}"}
                      - {id: off, type: log, message: m, disabled: true}
                      - {id: kept, type: log, message: m, runIf: "true"}
                    """));

            // when
            var created = driver.create();

            // then
            assertThat(driver.runOf("skipped").state()).isEqualTo(State.SKIPPED);
            assertThat(driver.runs("off")).isEmpty();
            assertThat(dispatchedTaskIds(created)).containsExactly("kept");
        }

        @Test
        void shouldFailARunWhoseRunIfDoesNotRender() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - {id: broken, type: log, message: m, runIf: "{{ outputs.nope == 2 }}"}
                    """));

            // when
            driver.create();

            // then
            assertThat(driver.runOf("broken").state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        }

        @Test
        @Timeout(60)
        void shouldFailARunWhoseRunIfGoesPastTheRenderLimits() {
            // given: the runIf of the report, 10^10 loop iterations (the steps or the clock stop it, as the machine goes)
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: looping
                        type: log
                        message: m
                        runIf: "{% set l = range(0,99999) %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}true"
                      - {id: never, type: log, message: m}
                    """));

            // when
            var created = driver.create();

            // then
            assertThat(driver.runOf("looping").state()).isEqualTo(State.FAILED);
            assertThat(driver.runOf("looping").error())
                    .startsWith("runIf: Unable to render")
                    .containsPattern("exceeds the render limit expression-max-(steps \\(1000000\\)|time \\(PT0\\.1S\\))$");
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
            assertThat(dispatchedTaskIds(created)).isEmpty();
        }

        @Test
        void shouldWaitOnATimerBetweenAttemptsAndStopAtMaxAttempt() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: flaky
                        type: log
                        message: m
                        retry: {type: constant, interval: PT2S, maxAttempt: 2}
                    """));
            driver.create();

            // when
            var failed = driver.fail("flaky");

            // then: RETRYING, no dispatch, a retry timer in 2 s
            assertThat(driver.run("flaky").state()).isEqualTo(State.RETRYING);
            assertThat(dispatchedTaskIds(failed)).isEmpty();
            assertThat(scheduledTimers(failed)).singleElement().satisfies(t -> {
                assertThat(t.kind()).isEqualTo(Timer.Kind.RETRY);
                assertThat(t.dueAt()).isEqualTo(driver.now().plus(Duration.ofSeconds(2)));
            });

            // when
            driver.advance(Duration.ofSeconds(2));
            var retried = driver.fire(Timer.Kind.RETRY, driver.run("flaky"));

            // then
            assertThat(dispatchedTaskIds(retried)).containsExactly("flaky");
            assertThat(driver.currentAttempt("flaky")).isEqualTo(2);

            // when: the last attempt fails too
            driver.fail("flaky");

            // then
            assertThat(driver.run("flaky").attempts()).extracting(Attempt::state, Attempt::error).containsExactly(
                    org.assertj.core.groups.Tuple.tuple(State.FAILED, "boom"),
                    org.assertj.core.groups.Tuple.tuple(State.FAILED, "boom"));
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        }

        @Test
        void shouldScheduleTheSameRetryTimerWhenSendingAgainAfterACrash() {
            // given: a random wait, drawn from the run's id
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: flaky
                        type: log
                        message: m
                        retry: {type: random, minInterval: PT1S, maxInterval: PT9S, maxAttempt: 3}
                    """));
            driver.create();
            Timer scheduled = scheduledTimers(driver.fail("flaky")).getFirst();

            // when
            var resent = driver.advance(Duration.ofMillis(300)).reemit();

            // then: the timer the state implies is the one stored, so it takes its key
            assertThat(scheduledTimers(resent)).containsExactly(scheduled);
            assertThat(scheduled.dueAt()).isBetween(driver.now().minusMillis(300).plusSeconds(1),
                    driver.now().minusMillis(300).plusSeconds(9));
        }

        @Test
        void shouldEndWarningAfterARetryWithWarningOnRetryAndSuccessWithAllowWarning() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: flaky
                        type: log
                        message: m
                        retry: {type: constant, interval: PT1S, maxAttempt: 3, warningOnRetry: true}
                      - id: tolerated
                        type: log
                        message: m
                        allowFailure: true
                        allowWarning: true
                    """));
            driver.create();

            // when
            driver.fail("flaky");
            driver.fire(Timer.Kind.RETRY, driver.run("flaky"));
            driver.succeed("flaky");
            driver.fail("tolerated");

            // then
            assertThat(driver.run("flaky").state()).isEqualTo(State.WARNING);
            assertThat(driver.run("tolerated").state()).isEqualTo(State.SUCCESS);
            assertThat(driver.execution().state()).isEqualTo(State.WARNING);
        }

        @Test
        void shouldRunAFlowableAgainWithItsChildrenReattemptedWhenItIsRetried() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: seq
                        type: sequential
                        retry: {type: constant, interval: PT1S, maxAttempt: 2}
                        tasks:
                          - {id: child, type: log, message: m}
                    """));
            driver.create();

            // when
            driver.end(driver.runOf("child"), State.FAILED);

            // then
            assertThat(driver.runOf("seq").state()).isEqualTo(State.RETRYING);

            // when
            var retried = driver.fire(Timer.Kind.RETRY, driver.runOf("seq"));

            // then: the same child run, with a second attempt
            assertThat(dispatchedTaskIds(retried)).containsExactly("child");
            assertThat(driver.runs("child")).singleElement().satisfies(r -> assertThat(r.attempts()).hasSize(2));
            driver.end(driver.runOf("child"), State.FAILED);
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().taskRuns()).hasSize(2);
        }

        @Test
        void shouldKillWhatRunsInsideAFlowableThatTimesOut() {
            // given
            var driver = ExecutionDriver.flow(flow("""
                    tasks:
                      - id: seq
                        type: sequential
                        timeout: PT1S
                        tasks:
                          - {id: child, type: sleep, duration: PT1M}
                        errors:
                          - {id: handle, type: log, message: m}
                    """));
            var created = driver.create();
            assertThat(scheduledTimers(created)).extracting(Timer::kind).contains(Timer.Kind.TIMEOUT);

            // when
            driver.advance(Duration.ofSeconds(1));
            var timedOut = driver.fire(Timer.Kind.TIMEOUT, driver.runOf("seq"));

            // then: the child is killed, and the flowable's own errors run before it fails
            assertThat(driver.runOf("child").state()).isEqualTo(State.KILLED);
            assertThat(dispatchedTaskIds(timedOut)).containsExactly("handle");
            driver.end(driver.runOf("handle"), State.SUCCESS);
            assertThat(driver.runOf("seq").state()).isEqualTo(State.FAILED);
            assertThat(driver.runOf("seq").error()).isEqualTo("Task 'child' ended KILLED: Timeout of 'seq' after PT1S");
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        }
    }
}
