package io.millrace.worker;

import static io.millrace.worker.WorkerTestSupport.dispatch;
import static io.millrace.worker.WorkerTestSupport.eventually;
import static io.millrace.worker.WorkerTestSupport.finalResult;
import static io.millrace.worker.WorkerTestSupport.task;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.TaskResult;
import io.millrace.core.execution.State;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.WorkerTestSupport.ResultReader;
import io.millrace.worker.task.TaskRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** No task holds a worker: every attempt has a deadline, and a task that computes for ever does not stop the others. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TaskLimitsTest {
    private static final long LEASE = 60_000;

    @Test
    void shouldKeepRunningTasksWhileMoreTasksThanCoresSpinIgnoringInterruption() {
        // given: more spinning tasks than cores (on virtual threads they would hold every carrier), each with a timeout
        int spinners = Runtime.getRuntime().availableProcessors() + 1;
        MillraceConfig config = WorkerTestSupport.config(spinners + 1,
                Map.of("worker-max-abandoned-tasks", Integer.toString(spinners)));
        var spin = new SpinTask();
        TaskRegistry tasks = TaskRegistry.forRole(config).with(SpinTask.TYPE, spin);
        var meters = new SimpleMeterRegistry();
        WorkerTaskRecord[] spinning = IntStream.range(0, spinners).mapToObj(i -> task("exec-s" + i, "spin", SpinTask.TYPE,
                Map.of("timeout", "PT4S"), Map.of(), LEASE)).toArray(WorkerTaskRecord[]::new);
        String[] spinIds = IntStream.range(0, spinners).mapToObj(i -> "exec-s" + i + "-spin").toArray(String[]::new);

        try (Worker worker = Worker.start(config, meters, tasks); var results = new ResultReader(config)) {
            try {
                dispatch(config, task("exec-warm", "warm", TaskTypes.RETURN, Map.of("format", "warm"), Map.of(), LEASE));
                results.awaitFinal("exec-warm-warm");
                dispatch(config, spinning);
                eventually(() -> spin.spinning() == spinners, spinners + " tasks spinning");

                // when
                dispatch(config, task("exec-o", "next", TaskTypes.RETURN, Map.of("format", "ran"), Map.of(), LEASE));
                List<TaskResult> all = results.awaitFinal(Stream.concat(Stream.of("exec-o-next"), Stream.of(spinIds))
                        .toArray(String[]::new));

                // then: the task ran while they spun, and each spinner ended FAILED at its timeout, then was abandoned
                TaskResult ran = finalResult(all, "exec-o-next");
                assertThat(ran.state()).isEqualTo(State.SUCCESS);
                for (String id : spinIds) {
                    TaskResult spun = finalResult(all, id);
                    assertThat(spun.state()).isEqualTo(State.FAILED);
                    assertThat(spun.error()).isEqualTo("Task 'spin': Timeout after PT4S");
                    assertThat(spun.at()).isAfter(ran.at());
                }
                eventually(() -> meters.counter("millrace.worker.tasks.abandoned", "group", "default").count() == spinners,
                        "the spinners counted as abandoned");
                assertThat(abandonedRunning(meters)).isEqualTo(spinners);
                assertThat(spin.spinning()).isEqualTo(spinners);
                assertThat(worker.alive()).as("alive with worker-max-abandoned-tasks spinning").isFalse();
                assertThat(worker.running()).isTrue();
            } finally {
                spin.release();
            }

            // and: once their threads return, none counts as running, and the worker is alive again
            eventually(() -> abandonedRunning(meters) == 0, "no abandoned task running");
            assertThat(worker.alive()).isTrue();
        }
    }

    @Test
    void shouldEndAnAttemptAtTheWorkersTaskMaxDurationUnlessItsOwnTimeoutIsShorter() {
        // given: a limit of 1 s; naps of 100 s without a timeout, with a longer one and with a shorter one
        MillraceConfig config = WorkerTestSupport.config(4, Map.of("task-max-duration", "PT1S"));
        WorkerTaskRecord bare = task("exec-m1", "nap", TaskTypes.SLEEP, Map.of("duration", "PT100S"), Map.of(), LEASE);
        WorkerTaskRecord longer = task("exec-m2", "nap", TaskTypes.SLEEP, Map.of("duration", "PT100S", "timeout", "PT10M"),
                Map.of(), LEASE);
        WorkerTaskRecord shorter = task("exec-m3", "nap", TaskTypes.SLEEP, Map.of("duration", "PT100S", "timeout", "PT0.3S"),
                Map.of(), LEASE);

        // when
        try (Worker worker = Worker.start(config); var results = new ResultReader(config)) {
            dispatch(config, bare, longer, shorter);
            List<TaskResult> all = results.awaitFinal("exec-m1-nap", "exec-m2-nap", "exec-m3-nap");

            // then
            assertThat(finalResult(all, "exec-m1-nap").error())
                    .isEqualTo("Task 'nap': Timeout after PT1S, the worker's limit task-max-duration");
            assertThat(finalResult(all, "exec-m2-nap").error())
                    .isEqualTo("Task 'nap': Timeout after PT1S, the worker's limit task-max-duration"
                            + " (shorter than its timeout PT10M)");
            assertThat(finalResult(all, "exec-m3-nap").error()).isEqualTo("Task 'nap': Timeout after PT0.3S");
        }
    }

    private static int abandonedRunning(SimpleMeterRegistry meters) {
        return (int) meters.get("millrace.worker.tasks.abandoned.running").tag("group", "default").gauge().value();
    }
}
