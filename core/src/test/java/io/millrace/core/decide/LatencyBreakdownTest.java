package io.millrace.core.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.LatencyBreakdown;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.WorkerTimes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The breakdown of an execution's time from what the decider keeps: the start's request time and each worker's
 * times, carried by results into the attempts they end (a success, a failure that is retried), and split into hops.
 */
class LatencyBreakdownTest {
    private static final String TWO_TASKS = """
            id: two
            namespace: io.millrace.tests
            tasks:
              - id: t1
                type: log
                message: one
              - id: t2
                type: log
                message: two
            """;

    private static final String RETRIED = """
            id: retried
            namespace: io.millrace.tests
            tasks:
              - id: t1
                type: log
                message: one
                retry:
                  type: constant
                  interval: PT1S
                  maxAttempts: 2
            """;

    @Test
    void shouldSplitASequentialExecutionIntoItsHops() {
        // given: a start asked for 4 ms before the executor read it
        var driver = ExecutionDriver.flow(TWO_TASKS);
        Instant requested = driver.now().minusMillis(4);
        driver.decide(new CreateExecution(ExecutionDriver.EXECUTION_ID, "io.millrace.tests", "two", null, Map.of(), Map.of(),
                requested));

        // when: each task reaches its worker 2 ms after dispatch, waits 1 ms for a thread, runs 10 ms, and its
        // result is read 3 ms after it was made
        Instant t1Dispatched = driver.now();
        driver.advance(Duration.ofMillis(16));
        driver.decide(result(driver, "t1", new WorkerTimes(t1Dispatched.plusMillis(2), t1Dispatched.plusMillis(3),
                t1Dispatched.plusMillis(13))));
        Instant t2Dispatched = driver.now();
        driver.advance(Duration.ofMillis(16));
        driver.decide(result(driver, "t2", new WorkerTimes(t2Dispatched.plusMillis(2), t2Dispatched.plusMillis(3),
                t2Dispatched.plusMillis(13))));

        // then: the attempts keep the workers' times, and the hops add up
        Execution execution = driver.execution();
        assertThat(execution.state()).isEqualTo(State.SUCCESS);
        assertThat(driver.run("t1").attempts().getFirst().worker().started()).isEqualTo(t1Dispatched.plusMillis(3));
        LatencyBreakdown hops = LatencyBreakdown.of(execution);
        assertThat(hops.queued()).isEqualTo(Duration.ofMillis(4));
        assertThat(hops.toWorkers()).isEqualTo(Duration.ofMillis(4));
        assertThat(hops.waitingForSlot()).isEqualTo(Duration.ofMillis(2));
        assertThat(hops.running()).isEqualTo(Duration.ofMillis(20));
        assertThat(hops.resultsBack()).isEqualTo(Duration.ofMillis(6));
        assertThat(hops.total()).isEqualTo(Duration.ofMillis(32));
        assertThat(hops.outsideWorkers()).isEqualTo(Duration.ZERO); // every decision at the instant its result came
    }

    @Test
    void shouldKeepTheWorkersTimesOfAFailedAttemptThatIsRetried() {
        // given
        var driver = ExecutionDriver.flow(RETRIED);
        driver.create();
        Instant dispatched = driver.now();
        driver.advance(Duration.ofMillis(20));
        var times = new WorkerTimes(dispatched.plusMillis(1), dispatched.plusMillis(2), dispatched.plusMillis(12));

        // when
        driver.decide(new TaskResult(ExecutionDriver.EXECUTION_ID, driver.runId("t1"), 1, State.FAILED, Map.of(), "boom",
                "worker-1", times, times.ended()));

        // then
        Attempt failed = driver.run("t1").attempts().getFirst();
        assertThat(driver.run("t1").state()).isEqualTo(State.RETRYING);
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.worker()).isEqualTo(times);
    }

    @Test
    void shouldCountOverlappingAttemptsOnceOutsideWorkersAndNegativeHopsAsZero() {
        // given: two parallel attempts, 0-10 ms and 5-20 ms, in an execution of 30 ms; the second's worker clock is
        // 3 ms behind the executor's, so its first hop would be negative
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        TaskRun a = run("a", t0, t0.plusMillis(10), new WorkerTimes(t0.plusMillis(1), t0.plusMillis(1), t0.plusMillis(9)));
        TaskRun b = run("b", t0.plusMillis(5), t0.plusMillis(20),
                new WorkerTimes(t0.plusMillis(2), t0.plusMillis(3), t0.plusMillis(18)));
        var execution = new Execution("e", "ns", "f", 1, Map.of(), Map.of(), null, State.SUCCESS,
                List.of(new StateHistory(State.CREATED, t0), new StateHistory(State.RUNNING, t0),
                        new StateHistory(State.SUCCESS, t0.plusMillis(30))), List.of(a, b), null, null);

        // when
        LatencyBreakdown hops = LatencyBreakdown.of(execution);

        // then: the workers were away 0-20 ms, the rest of 30 ms is outside them; no request time, no queued
        assertThat(hops.outsideWorkers()).isEqualTo(Duration.ofMillis(10));
        assertThat(hops.toWorkers()).isEqualTo(Duration.ofMillis(1)); // a's 1 ms, b's negative hop counts as zero
        assertThat(hops.running()).isEqualTo(Duration.ofMillis(8 + 15));
        assertThat(hops.queued()).isNull();
        assertThat(hops.total()).isEqualTo(Duration.ofMillis(30));
    }

    @Test
    void shouldLeaveTheEndToEndHopsUnknownWhileTheExecutionRuns() {
        // given
        var driver = ExecutionDriver.flow(TWO_TASKS);
        driver.create();

        // when
        LatencyBreakdown hops = LatencyBreakdown.of(driver.execution());

        // then
        assertThat(hops.total()).isNull();
        assertThat(hops.outsideWorkers()).isNull();
        assertThat(hops.running()).isEqualTo(Duration.ZERO);
    }

    private static TaskResult result(ExecutionDriver driver, String taskId, WorkerTimes times) {
        return new TaskResult(ExecutionDriver.EXECUTION_ID, driver.runId(taskId), driver.currentAttempt(taskId), State.SUCCESS,
                Map.of(), null, "worker-1", times, times.ended());
    }

    private static TaskRun run(String id, Instant dispatched, Instant read, WorkerTimes worker) {
        var attempt = new Attempt(1, State.SUCCESS, List.of(new StateHistory(State.RUNNING, dispatched),
                new StateHistory(State.SUCCESS, read)), read, null, false, worker);
        return new TaskRun(id, id, null, null, null, State.SUCCESS, List.of(new StateHistory(State.CREATED, dispatched),
                new StateHistory(State.SUCCESS, read)), List.of(attempt), null);
    }
}
