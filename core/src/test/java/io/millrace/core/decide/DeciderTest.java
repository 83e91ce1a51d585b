package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.EXECUTION_ID;
import static io.millrace.core.decide.ExecutionDriver.LEASE;
import static io.millrace.core.decide.ExecutionDriver.RETENTION;
import static io.millrace.core.decide.ExecutionDriver.T0;
import static io.millrace.core.decide.ExecutionDriver.dispatchedTaskIds;
import static io.millrace.core.decide.ExecutionDriver.eventTypes;
import static io.millrace.core.decide.ExecutionDriver.only;
import static io.millrace.core.decide.ExecutionDriver.scheduledTimers;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Timer;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.flow.TaskTypes;
import io.millrace.core.flow.WorkerTask;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DeciderTest {

    private static final String LINEAR = """
            id: linear
            namespace: io.millrace.tests
            labels:
              team: data
            tasks:
              - id: t1
                type: return
                format: "one"
              - id: t2
                type: io.kestra.plugin.core.log.Log
                message: "two"
            """;

    private static final String WITH_OUTPUTS = """
            id: with-outputs
            namespace: io.millrace.tests
            tasks:
              - id: t1
                type: return
                format: "{{ inputs.name }}"
              - id: t2
                type: log
                message: "done"
            inputs:
              - id: name
                type: STRING
                defaults: world
            outputs:
              - id: greeting
                type: STRING
                value: "hello {{ outputs.t1.value }}"
            """;

    private static final String ERRORS_AND_FINALLY = """
            id: errors-and-finally
            namespace: io.millrace.tests
            tasks:
              - id: t1
                type: return
                format: "one"
              - id: t2
                type: return
                format: "two"
            errors:
              - id: e1
                type: log
                message: "handling"
            finally:
              - id: f1
                type: log
                message: "cleanup"
            """;

    private static final String WITH_DISABLED = """
            id: with-disabled
            namespace: io.millrace.tests
            tasks:
              - id: t1
                type: return
                format: "one"
                disabled: true
              - id: t2
                type: return
                format: "two"
              - id: t3
                type: log
                message: "three"
                disabled: true
              - id: t4
                type: log
                message: "four"
            errors:
              - id: e1
                type: log
                message: "never"
                disabled: true
              - id: e2
                type: log
                message: "handling"
            finally:
              - id: f1
                type: log
                message: "never"
                disabled: true
            """;

    private static final String WITH_INPUTS = """
            id: with-inputs
            namespace: io.millrace.tests
            inputs:
              - id: count
                type: INT
              - id: verbose
                type: BOOLEAN
                defaults: false
            tasks:
              - id: t1
                type: log
                message: "{{ inputs.count }}"
            """;

    @Nested
    class Creating {

        @Test
        void shouldCreateExecutionAndDispatchFirstTask() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);

            // when
            Decision decision = driver.create();

            // then
            assertThat(decision.rejection()).isEmpty();
            assertThat(eventTypes(decision)).containsExactly(ExecutionCreated.class, ExecutionStateChanged.class,
                    TaskRunCreated.class, TaskRunAttemptStarted.class);
            var created = only(decision, ExecutionCreated.class);
            assertThat(created.executionId()).isEqualTo(EXECUTION_ID);
            assertThat(created.namespace()).isEqualTo("io.millrace.tests");
            assertThat(created.flowId()).isEqualTo("linear");
            assertThat(only(decision, ExecutionStateChanged.class).state()).isEqualTo(State.RUNNING);
            assertThat(only(decision, TaskRunCreated.class).taskId()).isEqualTo("t1");
            var started = only(decision, TaskRunAttemptStarted.class);
            assertThat(started.attempt()).isEqualTo(1);
            assertThat(started.leaseUntil()).isEqualTo(T0.plus(LEASE));

            var runId = driver.runId("t1");
            assertThat(decision.effects()).containsExactly(
                    new Effect.DispatchTask(EXECUTION_ID, runId, 1, (WorkerTask) driver.flow().task("t1").orElseThrow()),
                    new Effect.ScheduleTimer(new Timer(EXECUTION_ID, Timer.Kind.LEASE, runId, 1, T0.plus(LEASE))),
                    new Effect.EmitSnapshot(EXECUTION_ID));

            Execution execution = driver.execution();
            assertThat(execution.state()).isEqualTo(State.RUNNING);
            assertThat(execution.histories()).extracting(StateHistory::state)
                    .containsExactly(State.CREATED, State.RUNNING);
            assertThat(execution.labels()).containsEntry("team", "data");
            assertThat(driver.taskIdsRun()).containsExactly("t1");
            assertThat(driver.run("t1").state()).isEqualTo(State.RUNNING);
            assertThat(driver.run("t1").attempts()).extracting(Attempt::number, Attempt::state)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1, State.RUNNING));
        }

        @Test
        void shouldDispatchCanonicalTaskDefinition() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);

            // when
            Decision decision = driver.create();

            // then
            var dispatch = (Effect.DispatchTask) decision.effects().getFirst();
            assertThat(dispatch.task().type()).isEqualTo(TaskTypes.RETURN);
            assertThat(dispatch.task().properties()).containsEntry("format", "one");
        }

        @Test
        void shouldMergeExecutionLabelsOverFlowLabels() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);

            // when
            driver.decide(new io.millrace.core.command.CreateExecution(EXECUTION_ID, "io.millrace.tests", "linear",
                    null, Map.of(), Map.of("team", "ops", "run", "nightly"), T0));

            // then
            assertThat(driver.execution().labels()).containsOnly(Map.entry("team", "ops"), Map.entry("run", "nightly"),
                    Map.entry("system.correlationId", EXECUTION_ID));
        }

        @Test
        void shouldKeepAGivenCorrelationIdAndShowDottedLabelsNestedToExpressions() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);

            // when
            driver.decide(new io.millrace.core.command.CreateExecution(EXECUTION_ID, "io.millrace.tests", "linear",
                    null, Map.of(), Map.of("system.correlationId", "root-1"), T0));

            // then
            assertThat(driver.execution().labels()).containsEntry("system.correlationId", "root-1");
            assertThat(Contexts.nestedLabels(driver.execution().labels()))
                    .containsEntry("system", Map.of("correlationId", "root-1"))
                    .containsEntry("system.correlationId", "root-1");
        }

        @Test
        void shouldFailExecutionNamingTheInvalidInput() {
            // given
            var driver = ExecutionDriver.flow(WITH_INPUTS);

            // when
            Decision decision = driver.create(Map.of("verbose", "maybe"));

            // then
            assertThat(decision.rejection()).isEmpty();
            assertThat(eventTypes(decision)).containsExactly(ExecutionCreated.class, ExecutionCompleted.class);
            var completed = only(decision, ExecutionCompleted.class);
            assertThat(completed.state()).isEqualTo(State.FAILED);
            assertThat(completed.error()).contains("'count'").contains("'verbose'").contains("BOOLEAN");
            assertThat(dispatchedTaskIds(decision)).isEmpty();
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().taskRuns()).isEmpty();
        }

        @Test
        void shouldResolveInputsWithDefaults() {
            // given
            var driver = ExecutionDriver.flow(WITH_INPUTS);

            // when
            driver.create(Map.of("count", "42"));

            // then
            assertThat(driver.execution().inputs()).containsOnly(Map.entry("count", 42L), Map.entry("verbose", false));
            assertThat(driver.execution().state()).isEqualTo(State.RUNNING);
        }

        @Test
        void shouldRejectUnknownFlowAsInvalid() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);

            // when
            Decision decision = driver.createWithoutFlow();

            // then
            assertThat(decision.rejection()).hasValueSatisfying(r -> {
                assertThat(r.kind()).isEqualTo(Rejection.Kind.INVALID);
                assertThat(r.benign()).isFalse();
                assertThat(r.reason()).contains("io.millrace.tests/missing").contains("revision 3");
            });
            assertThat(decision.events()).isEmpty();
            assertThat(decision.effects()).isEmpty();
            assertThat(driver.state().execution()).isEmpty();
        }

        @Test
        void shouldRejectDuplicateCreateWithoutEvents() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            Execution before = driver.execution();

            // when
            Decision decision = driver.advance(Duration.ofSeconds(1)).create();

            // then
            assertThat(decision.rejection()).hasValueSatisfying(r -> {
                assertThat(r.kind()).isEqualTo(Rejection.Kind.DUPLICATE);
                assertThat(r.benign()).isTrue();
            });
            assertThat(decision.events()).isEmpty();
            assertThat(decision.effects()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
        }

        @Test
        void shouldCompleteAtOnceWhenEveryTaskIsDisabled() {
            // given
            var driver = ExecutionDriver.flow("""
                    id: all-disabled
                    namespace: io.millrace.tests
                    tasks:
                      - id: t1
                        type: log
                        message: "never"
                        disabled: true
                    """);

            // when
            Decision decision = driver.create();

            // then
            assertThat(eventTypes(decision)).containsExactly(ExecutionCreated.class, ExecutionStateChanged.class,
                    ExecutionCompleted.class);
            assertThat(only(decision, ExecutionCompleted.class).state()).isEqualTo(State.SUCCESS);
            assertThat(driver.execution().taskRuns()).isEmpty();
        }
    }

    @Nested
    class Advancing {

        @Test
        void shouldDispatchNextTaskWhenTaskSucceeds() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();

            // when
            Decision decision = driver.advance(Duration.ofSeconds(2)).succeed("t1", Map.of("value", "one"));

            // then
            assertThat(eventTypes(decision)).containsExactly(TaskRunCompleted.class, TaskRunCreated.class,
                    TaskRunAttemptStarted.class);
            var completed = only(decision, TaskRunCompleted.class);
            assertThat(completed.state()).isEqualTo(State.SUCCESS);
            assertThat(completed.outputs()).containsEntry("value", "one");
            assertThat(dispatchedTaskIds(decision)).containsExactly("t2");
            assertThat(scheduledTimers(decision)).singleElement().satisfies(timer -> {
                assertThat(timer.taskRunId()).isEqualTo(driver.runId("t2"));
                assertThat(timer.dueAt()).isEqualTo(driver.now().plus(LEASE));
            });
            assertThat(decision.effects()).last().isEqualTo(new Effect.EmitSnapshot(EXECUTION_ID));
            assertThat(driver.run("t1").state()).isEqualTo(State.SUCCESS);
            assertThat(driver.run("t1").attempts()).singleElement()
                    .extracting(Attempt::state).isEqualTo(State.SUCCESS);
            assertThat(driver.state().outputs(driver.runId("t1"))).containsEntry("value", "one");
            assertThat(driver.execution().state()).isEqualTo(State.RUNNING);
        }

        @Test
        void shouldCancelTheLeaseTimerOfTheAttemptAResultEnds() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();

            // when
            Decision decision = driver.advance(Duration.ofSeconds(2)).fail("t1");

            // then: the timer scheduled when the attempt started, exactly
            assertThat(decision.effects()).contains(new Effect.CancelTimer(
                    new Timer(EXECUTION_ID, Timer.Kind.LEASE, driver.runId("t1"), 1, T0.plus(LEASE))));
        }

        @Test
        void shouldCompleteWithFlowOutputsRenderedFromTaskOutputs() {
            // given
            var driver = ExecutionDriver.flow(WITH_OUTPUTS);
            driver.create();
            driver.succeed("t1", Map.of("value", "world"));

            // when
            Decision decision = driver.succeed("t2");

            // then
            assertThat(eventTypes(decision)).containsExactly(TaskRunCompleted.class, ExecutionCompleted.class);
            var completed = only(decision, ExecutionCompleted.class);
            assertThat(completed.state()).isEqualTo(State.SUCCESS);
            assertThat(completed.error()).isNull();
            assertThat(completed.outputs()).containsExactly(Map.entry("greeting", "hello world"));
            assertThat(dispatchedTaskIds(decision)).isEmpty();
            assertThat(decision.effects()).containsExactly(
                    new Effect.CancelTimer(new Timer(EXECUTION_ID, Timer.Kind.LEASE, driver.runId("t2"), 1, T0.plus(LEASE))),
                    new Effect.ScheduleTimer(Timer.purge(EXECUTION_ID, driver.now().plus(RETENTION))),
                    new Effect.EmitSnapshot(EXECUTION_ID));
            assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
            assertThat(driver.execution().outputs()).containsExactly(Map.entry("greeting", "hello world"));
        }

        @Test
        void shouldCompleteSuccessWithoutOutputsWhenFlowDeclaresNone() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1");

            // when
            Decision decision = driver.succeed("t2");

            // then
            var completed = only(decision, ExecutionCompleted.class);
            assertThat(completed.state()).isEqualTo(State.SUCCESS);
            assertThat(completed.outputs()).isNull();
            assertThat(driver.execution().histories()).extracting(StateHistory::state)
                    .containsExactly(State.CREATED, State.RUNNING, State.SUCCESS);
        }

        @Test
        void shouldFailExecutionWhenFlowOutputCannotBeRendered() {
            // given: t1 reports no 'value' output, which the flow output needs
            var driver = ExecutionDriver.flow(WITH_OUTPUTS);
            driver.create();
            driver.succeed("t1");

            // when
            Decision decision = driver.succeed("t2");

            // then
            var completed = only(decision, ExecutionCompleted.class);
            assertThat(completed.state()).isEqualTo(State.FAILED);
            assertThat(completed.outputs()).isNull();
            assertThat(completed.error()).startsWith("Flow outputs failed");
        }

        @Test
        void shouldEndWarningWhenTaskReportsWarning() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();

            // when
            Decision afterWarning = driver.result("t1", State.WARNING, Map.of());
            Decision afterLast = driver.succeed("t2");

            // then
            assertThat(dispatchedTaskIds(afterWarning)).containsExactly("t2");
            assertThat(only(afterLast, ExecutionCompleted.class).state()).isEqualTo(State.WARNING);
            assertThat(driver.run("t1").state()).isEqualTo(State.WARNING);
            assertThat(driver.execution().state()).isEqualTo(State.WARNING);
        }

        @Test
        void shouldRunErrorsThenFinallyThenFailWhenTaskFails() {
            // given
            var driver = ExecutionDriver.flow(ERRORS_AND_FINALLY);
            driver.create();

            // when
            Decision afterFailure = driver.fail("t1");
            Decision afterErrors = driver.succeed("e1");
            Decision afterFinally = driver.succeed("f1");

            // then
            assertThat(only(afterFailure, TaskRunCompleted.class).error()).isEqualTo("boom");
            assertThat(dispatchedTaskIds(afterFailure)).containsExactly("e1");
            assertThat(dispatchedTaskIds(afterErrors)).containsExactly("f1");
            assertThat(afterErrors.events()).noneMatch(ExecutionCompleted.class::isInstance);
            var completed = only(afterFinally, ExecutionCompleted.class);
            assertThat(completed.state()).isEqualTo(State.FAILED);
            assertThat(completed.error()).isEqualTo("Task 't1' ended FAILED: boom");
            assertThat(completed.outputs()).isNull();
            assertThat(driver.taskIdsRun()).containsExactly("t1", "e1", "f1");
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
        }

        @Test
        void shouldRunFinallyWhenAnErrorsTaskFailsToo() {
            // given
            var driver = ExecutionDriver.flow(ERRORS_AND_FINALLY);
            driver.create();
            driver.fail("t1");

            // when
            Decision afterErrors = driver.fail("e1");
            Decision afterFinally = driver.succeed("f1");

            // then
            assertThat(dispatchedTaskIds(afterErrors)).containsExactly("f1");
            assertThat(only(afterFinally, ExecutionCompleted.class).state()).isEqualTo(State.FAILED);
        }

        @Test
        void shouldRunFinallyButNotErrorsAfterSuccess() {
            // given
            var driver = ExecutionDriver.flow(ERRORS_AND_FINALLY);
            driver.create();
            driver.succeed("t1");

            // when
            Decision afterMain = driver.succeed("t2");
            Decision afterFinally = driver.succeed("f1");

            // then
            assertThat(dispatchedTaskIds(afterMain)).containsExactly("f1");
            assertThat(afterMain.events()).noneMatch(ExecutionCompleted.class::isInstance);
            assertThat(only(afterFinally, ExecutionCompleted.class).state()).isEqualTo(State.SUCCESS);
            assertThat(driver.taskIdsRun()).containsExactly("t1", "t2", "f1");
        }

        @Test
        void shouldFailWhenAFinallyTaskFailsAfterSuccess() {
            // given
            var driver = ExecutionDriver.flow(ERRORS_AND_FINALLY);
            driver.create();
            driver.succeed("t1");
            driver.succeed("t2");

            // when
            Decision afterFinally = driver.fail("f1");

            // then
            var completed = only(afterFinally, ExecutionCompleted.class);
            assertThat(completed.state()).isEqualTo(State.FAILED);
            assertThat(completed.error()).isEqualTo("Task 'f1' ended FAILED: boom");
        }

        @Test
        void shouldPassOverDisabledTasks() {
            // given
            var driver = ExecutionDriver.flow(WITH_DISABLED);

            // when
            Decision created = driver.create();
            Decision afterT2 = driver.succeed("t2");
            Decision afterT4 = driver.fail("t4");
            Decision afterE2 = driver.succeed("e2");

            // then
            assertThat(dispatchedTaskIds(created)).containsExactly("t2");
            assertThat(dispatchedTaskIds(afterT2)).containsExactly("t4");
            assertThat(dispatchedTaskIds(afterT4)).containsExactly("e2");
            assertThat(only(afterE2, ExecutionCompleted.class).state()).isEqualTo(State.FAILED);
            assertThat(driver.taskIdsRun()).containsExactly("t2", "t4", "e2");
        }
    }

    @Nested
    class StaleResults {

        @Test
        void shouldRejectResultOfOldAttemptAsStale() {
            // given: attempt 1 of t1 was lost and attempt 2 dispatched
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(LEASE).fireLease("t1", 1);
            Execution before = driver.execution();

            // when
            Decision decision = driver.resultFor(driver.runId("t1"), 1, State.SUCCESS, Map.of("value", "late"));

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(decision.events()).isEmpty();
            assertThat(decision.effects()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
            assertThat(driver.state().outputs(driver.runId("t1"))).isEmpty();
        }

        @Test
        void shouldRejectHeartbeatOfOldAttemptAsStale() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(LEASE).fireLease("t1", 1);

            // when
            Decision decision = driver.resultFor(driver.runId("t1"), 1, State.RUNNING, Map.of());

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(decision.events()).isEmpty();
        }

        @Test
        void shouldRejectResultOfUnknownTaskRunAsStale() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            Execution before = driver.execution();

            // when
            Decision decision = driver.resultFor("no-such-run", 1, State.SUCCESS, Map.of());

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(decision.events()).isEmpty();
            assertThat(decision.effects()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
        }

        @Test
        void shouldRejectResultOfEndedTaskRunAsDuplicateOrStale() {
            // given: t1 already succeeded once
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1", Map.of("value", "first"));
            Execution before = driver.execution();

            // when: the same result is delivered again, then a contradicting one
            Decision duplicate = driver.resultFor(driver.runId("t1"), 1, State.SUCCESS, Map.of("value", "first"));
            Decision contradicting = driver.resultFor(driver.runId("t1"), 1, State.FAILED, Map.of());

            // then: the replay is told apart from a result that was never applied
            assertThat(duplicate.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.DUPLICATE);
            assertThat(contradicting.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(duplicate.events()).isEmpty();
            assertThat(contradicting.events()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
            assertThat(driver.state().outputs(driver.runId("t1"))).containsEntry("value", "first");
        }

        @Test
        void shouldRecogniseTheReplayOfTheResultThatEndedTheExecution() {
            // given: the last result ended the execution
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1");
            driver.succeed("t2");

            // when: it is delivered again (a replay after a crash under at-least-once)
            Decision decision = driver.resultFor(driver.runId("t2"), 1, State.SUCCESS, Map.of());

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.DUPLICATE);
            assertThat(decision.events()).isEmpty();
        }

        @Test
        void shouldRejectNonWorkerStateAsInvalid() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            Execution before = driver.execution();

            // when
            Decision decision = driver.result("t1", State.CREATED, Map.of());

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.INVALID);
            assertThat(decision.events()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
        }
    }

    @Nested
    class Reemit {

        @Test
        void shouldSendTheSnapshotAndTheRunningAttemptAgain() {
            // given: t1 succeeded, t2 attempt 1 is running
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1");
            Execution before = driver.execution();

            // when
            Decision decision = driver.reemit();

            // then
            assertThat(decision.events()).isEmpty();
            assertThat(decision.rejection()).isEmpty();
            assertThat(dispatchedTaskIds(decision)).containsExactly("t2");
            assertThat(decision.effects()).filteredOn(Effect.DispatchTask.class::isInstance)
                    .singleElement().extracting(e -> ((Effect.DispatchTask) e).attempt()).isEqualTo(1);
            assertThat(decision.effects()).contains(new Effect.EmitSnapshot(EXECUTION_ID));
            assertThat(driver.execution()).isEqualTo(before);
        }

        @Test
        void shouldArmTheRunningAttemptsLeaseAgainAtItsStoredDeadline() {
            // given: t2 attempt 1 started at T0 + 3 s; its lease timer may have been lost in a crash
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(Duration.ofSeconds(3)).succeed("t1");
            Instant deadline = driver.run("t2").currentAttempt().orElseThrow().leaseUntil();

            // when: later, the replayed result reaches the executor
            Decision decision = driver.advance(Duration.ofSeconds(10)).reemit();

            // then: the same timer as the one the dispatch scheduled, not a fresh lease
            assertThat(deadline).isEqualTo(T0.plusSeconds(3).plus(LEASE));
            assertThat(scheduledTimers(decision)).containsExactly(
                    new Timer(EXECUTION_ID, Timer.Kind.LEASE, driver.runId("t2"), 1, deadline));
        }

        @Test
        void shouldSendTheSnapshotOfAnEndedExecutionAndArmItsPurgeAgain() {
            // given: ended at T0 + 2 s
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1");
            driver.advance(Duration.ofSeconds(2)).succeed("t2");

            // when
            Decision decision = driver.advance(Duration.ofMinutes(5)).reemit();

            // then: the purge the end scheduled, at its retention from the end, not from now
            assertThat(decision.effects()).containsExactly(
                    new Effect.ScheduleTimer(Timer.purge(EXECUTION_ID, T0.plusSeconds(2).plus(RETENTION))),
                    new Effect.EmitSnapshot(EXECUTION_ID));
        }

        @Test
        void shouldSendTheCurrentAttemptAfterARedispatch() {
            // given: attempt 1 of t1 was lost, attempt 2 runs
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(LEASE).fireLease("t1", 1);

            // when
            Decision decision = driver.reemit();

            // then
            assertThat(decision.effects()).filteredOn(Effect.DispatchTask.class::isInstance)
                    .singleElement().extracting(e -> ((Effect.DispatchTask) e).attempt()).isEqualTo(2);
            assertThat(scheduledTimers(decision)).extracting(Timer::attempt).containsExactly(2);
        }
    }

    @Nested
    class Leases {

        @Test
        void shouldExtendLeaseOnHeartbeat() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();

            // when
            Decision decision = driver.advance(Duration.ofSeconds(20)).heartbeat("t1");

            // then
            var until = driver.now().plus(LEASE);
            assertThat(decision.rejection()).isEmpty();
            assertThat(decision.events()).containsExactly(
                    new TaskRunLeaseExtended(driver.runId("t1"), 1, until, driver.now()));
            assertThat(decision.effects()).containsExactly(
                    new Effect.CancelTimer(new Timer(EXECUTION_ID, Timer.Kind.LEASE, driver.runId("t1"), 1, T0.plus(LEASE))),
                    new Effect.ScheduleTimer(new Timer(EXECUTION_ID, Timer.Kind.LEASE, driver.runId("t1"), 1, until)),
                    new Effect.EmitSnapshot(EXECUTION_ID));
            assertThat(driver.run("t1").currentAttempt()).hasValueSatisfying(a -> {
                assertThat(a.leaseUntil()).isEqualTo(until);
                assertThat(a.state()).isEqualTo(State.RUNNING);
            });
            assertThat(driver.run("t1").state()).isEqualTo(State.RUNNING);
        }

        @Test
        void shouldRedispatchWhenLeaseExpires() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();

            // when
            Decision decision = driver.advance(LEASE).fireLease("t1", 1);

            // then
            assertThat(eventTypes(decision)).containsExactly(TaskRunAttemptEnded.class, TaskRunAttemptStarted.class);
            var ended = only(decision, TaskRunAttemptEnded.class);
            assertThat(ended.attempt()).isEqualTo(1);
            assertThat(ended.state()).isEqualTo(State.FAILED);
            assertThat(ended.reason()).contains("Lease expired");
            assertThat(only(decision, TaskRunAttemptStarted.class).attempt()).isEqualTo(2);
            assertThat(decision.effects()).contains(
                    new Effect.DispatchTask(EXECUTION_ID, driver.runId("t1"), 2, (WorkerTask) driver.flow().task("t1").orElseThrow()),
                    new Effect.ScheduleTimer(new Timer(EXECUTION_ID, Timer.Kind.LEASE, driver.runId("t1"), 2,
                            driver.now().plus(LEASE))));
            assertThat(driver.run("t1").state()).isEqualTo(State.RUNNING);
            assertThat(driver.run("t1").attempts()).extracting(Attempt::number, Attempt::state).containsExactly(
                    org.assertj.core.groups.Tuple.tuple(1, State.FAILED),
                    org.assertj.core.groups.Tuple.tuple(2, State.RUNNING));
        }

        @Test
        void shouldAcceptResultOfRedispatchedAttempt() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(LEASE).fireLease("t1", 1);

            // when
            Decision decision = driver.resultFor(driver.runId("t1"), 2, State.SUCCESS, Map.of());

            // then
            assertThat(decision.rejection()).isEmpty();
            assertThat(dispatchedTaskIds(decision)).containsExactly("t2");
            assertThat(driver.run("t1").attempts()).extracting(Attempt::state)
                    .containsExactly(State.FAILED, State.SUCCESS);
        }

        @Test
        void shouldIgnoreLeaseTimerFiredBeforeTheLeaseEnds() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();

            // when
            Decision decision = driver.advance(LEASE.minusSeconds(1)).fireLease("t1", 1);

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(decision.events()).isEmpty();
            assertThat(decision.effects()).isEmpty();
        }

        @Test
        void shouldIgnoreLeaseTimerOfFinishedAttempt() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1");
            Execution before = driver.execution();

            // when
            Decision decision = driver.advance(LEASE.multipliedBy(2)).fireLease("t1", 1);

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(decision.events()).isEmpty();
            assertThat(decision.effects()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
        }

        @Test
        void shouldIgnoreLeaseTimerOfAnAttemptAlreadyReplaced() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(LEASE).fireLease("t1", 1);

            // when: the first timer is delivered a second time
            Decision decision = driver.advance(Duration.ofSeconds(1)).fireLease("t1", 1);

            // then
            assertThat(decision.events()).isEmpty();
            assertThat(driver.run("t1").attempts()).hasSize(2);
        }

        @Test
        void shouldIgnoreOriginalLeaseTimerAfterHeartbeat() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(Duration.ofSeconds(20)).heartbeat("t1");

            // when: the timer scheduled at dispatch comes due
            Decision decision = driver.advance(Duration.ofSeconds(10)).decide(new io.millrace.core.command.TimerFired(
                    new Timer(EXECUTION_ID, Timer.Kind.LEASE, driver.runId("t1"), 1, T0.plus(LEASE)), driver.now()));

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(decision.events()).isEmpty();
            assertThat(decision.effects()).isEmpty();
            assertThat(driver.run("t1").currentAttempt()).map(Attempt::state).hasValue(State.RUNNING);
        }

        @Test
        void shouldExpireExtendedLeaseOnceItEnds() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.advance(Duration.ofSeconds(20)).heartbeat("t1");

            // when
            Decision decision = driver.advance(LEASE).fireLease("t1", 1);

            // then
            assertThat(eventTypes(decision)).containsExactly(TaskRunAttemptEnded.class, TaskRunAttemptStarted.class);
        }

        @Test
        void shouldFailTaskRunAndExecutionWhenMaxLostAttemptsExhausted() {
            // given: at most 2 attempts may be lost, and the flow has errors and finally
            var driver = ExecutionDriver.flow(ERRORS_AND_FINALLY, new DeciderSettings(LEASE, 2, RETENTION));
            driver.create();
            driver.advance(LEASE).fireLease("t1", 1);

            // when
            Decision decision = driver.advance(LEASE).fireLease("t1", 2);

            // then
            assertThat(eventTypes(decision)).startsWith(TaskRunAttemptEnded.class, TaskRunCompleted.class);
            var completed = only(decision, TaskRunCompleted.class);
            assertThat(completed.state()).isEqualTo(State.FAILED);
            assertThat(completed.error()).contains("Lost 2 attempt(s)");
            assertThat(dispatchedTaskIds(decision)).containsExactly("e1");
            assertThat(driver.run("t1").attempts()).extracting(Attempt::state)
                    .containsExactly(State.FAILED, State.FAILED);

            // and when errors and finally complete
            driver.succeed("e1");
            Decision last = driver.succeed("f1");

            // then
            assertThat(only(last, ExecutionCompleted.class).state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().error())
                    .isEqualTo("Task 't1' ended FAILED: Lost 2 attempt(s) to workers that stopped answering");
        }

        @Test
        void shouldFailExecutionAtOnceWhenOnlyOneAttemptIsAllowed() {
            // given
            var driver = ExecutionDriver.flow(LINEAR, new DeciderSettings(LEASE, 1, RETENTION));
            driver.create();

            // when
            Decision decision = driver.advance(LEASE).fireLease("t1", 1);

            // then
            assertThat(eventTypes(decision)).containsExactly(TaskRunAttemptEnded.class, TaskRunCompleted.class,
                    ExecutionCompleted.class);
            assertThat(only(decision, ExecutionCompleted.class).state()).isEqualTo(State.FAILED);
            assertThat(driver.taskIdsRun()).containsExactly("t1");
        }
    }

    @Nested
    class Killing {

        @Test
        void shouldKillRunningTaskRunAndExecution() {
            // given
            var driver = ExecutionDriver.flow(ERRORS_AND_FINALLY);
            driver.create();
            driver.succeed("t1");

            // when
            Decision decision = driver.advance(Duration.ofSeconds(3)).kill();

            // then
            assertThat(eventTypes(decision)).containsExactly(ExecutionStateChanged.class, TaskRunCompleted.class,
                    ExecutionCompleted.class);
            assertThat(only(decision, ExecutionStateChanged.class).state()).isEqualTo(State.KILLING);
            var killedRun = only(decision, TaskRunCompleted.class);
            assertThat(killedRun.taskRunId()).isEqualTo(driver.runId("t2"));
            assertThat(killedRun.state()).isEqualTo(State.KILLED);
            assertThat(only(decision, ExecutionCompleted.class).state()).isEqualTo(State.KILLED);
            assertThat(dispatchedTaskIds(decision)).as("errors/finally do not run on kill").isEmpty();
            assertThat(driver.run("t1").state()).isEqualTo(State.SUCCESS);
            assertThat(driver.run("t2").state()).isEqualTo(State.KILLED);
            assertThat(driver.run("t2").attempts()).singleElement()
                    .extracting(Attempt::state).isEqualTo(State.KILLED);
            assertThat(driver.execution().histories()).extracting(StateHistory::state)
                    .containsExactly(State.CREATED, State.RUNNING, State.KILLING, State.KILLED);
        }

        @Test
        void shouldRejectResultsAfterKillAsStale() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.kill();
            Execution before = driver.execution();

            // when
            Decision late = driver.resultFor(driver.runId("t1"), 1, State.SUCCESS, Map.of("value", "late"));

            // then
            assertThat(late.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(late.events()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
            assertThat(driver.state().outputs(driver.runId("t1"))).isEmpty();
        }
    }

    @Nested
    class AfterTheEnd {

        @Test
        void shouldRejectEveryCommandAfterExecutionEndedAsStale() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1");
            driver.succeed("t2");
            Execution before = driver.execution();
            int events = driver.log().size();

            // when
            driver.advance(LEASE.multipliedBy(3));
            List<Decision> decisions = List.of(
                    driver.resultFor(driver.runId("t2"), 1, State.FAILED, Map.of()),
                    driver.resultFor(driver.runId("t2"), 1, State.RUNNING, Map.of()),
                    driver.fireLease("t2", 1),
                    driver.kill());

            // then
            assertThat(decisions).allSatisfy(d -> {
                assertThat(d.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
                assertThat(d.events()).isEmpty();
                assertThat(d.effects()).isEmpty();
            });
            assertThat(driver.execution()).isEqualTo(before);
            assertThat(driver.log()).hasSize(events);
        }

        @Test
        void shouldRejectCommandsForAnExecutionThatDoesNotExistAsStale() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);

            // when
            Decision decision = driver.kill();

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(driver.state().execution()).isEmpty();
        }

        @Test
        void shouldFailRunningTaskRunsWhenFailedFromOutside() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();

            // when
            Decision decision = driver.failFromOutside("Internal error: boom");

            // then
            assertThat(eventTypes(decision)).containsExactly(TaskRunCompleted.class, ExecutionCompleted.class);
            assertThat(driver.run("t1").state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().state()).isEqualTo(State.FAILED);
            assertThat(driver.execution().error()).isEqualTo("Internal error: boom");
            assertThat(decision.effects()).containsExactly(
                    new Effect.ScheduleTimer(Timer.purge(EXECUTION_ID, driver.now().plus(RETENTION))),
                    new Effect.EmitSnapshot(EXECUTION_ID));
        }

        @Test
        void shouldKeepAFinishedExecutionForTheRetentionThenPurgeIt() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            driver.succeed("t1");
            Decision completing = driver.advance(Duration.ofSeconds(2)).succeed("t2");

            // when
            Decision purging = driver.advance(RETENTION).firePurge();

            // then
            assertThat(scheduledTimers(completing)).containsExactly(Timer.purge(EXECUTION_ID, T0.plusSeconds(2).plus(RETENTION)));
            assertThat(eventTypes(purging)).containsExactly(ExecutionPurged.class);
            assertThat(purging.effects()).containsExactly(new Effect.EmitSnapshot(EXECUTION_ID));
            assertThat(driver.state().execution()).isEmpty();
            assertThat(driver.state().allOutputs()).isEmpty();
            assertThat(driver.resultFor(driver.runId("t2"), 1, State.SUCCESS, Map.of()).rejection())
                    .map(Rejection::kind).hasValue(Rejection.Kind.STALE);
        }

        @Test
        void shouldNotPurgeAnExecutionThatIsStillRunning() {
            // given
            var driver = ExecutionDriver.flow(LINEAR);
            driver.create();
            Execution before = driver.execution();

            // when
            Decision decision = driver.firePurge();

            // then
            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
            assertThat(decision.events()).isEmpty();
            assertThat(driver.execution()).isEqualTo(before);
        }
    }

    @Test
    void shouldRebuildTheSameStateByReplayingTheEvents() {
        // given
        var driver = ExecutionDriver.flow(WITH_OUTPUTS);
        driver.create();
        driver.advance(Duration.ofSeconds(10)).heartbeat("t1");
        driver.advance(LEASE).fireLease("t1", 1);
        driver.advance(Duration.ofSeconds(1)).resultFor(driver.runId("t1"), 2, State.SUCCESS, Map.of("value", "x"));
        driver.succeed("t2");

        // when
        var replayed = new InMemoryExecutionState();
        var appliers = new Appliers();
        driver.log().forEach(e -> appliers.apply(e, replayed));

        // then
        assertThat(replayed.execution()).hasValue(driver.execution());
        assertThat(replayed.allOutputs()).isEqualTo(driver.state().allOutputs());
        assertThat(driver.execution().outputs()).containsEntry("greeting", "hello x");
    }
}
