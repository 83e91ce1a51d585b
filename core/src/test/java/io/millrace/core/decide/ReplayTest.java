package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.LEASE;
import static io.millrace.core.decide.ExecutionDriver.RETENTION;
import static io.millrace.core.decide.ExecutionDriver.dispatchedTaskIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.ReplaySeed;
import io.millrace.core.command.TaskResult;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/** A replay from a chosen task run: a new execution that keeps what ended before it and runs it and the rest anew. */
class ReplayTest {
    private static final String FLOW = """
            id: f
            namespace: io.millrace.tests
            tasks:
              - {id: first, type: return, format: one}
              - id: each
                type: io.kestra.plugin.core.flow.ForEach
                values: ["a", "b", "c"]
                tasks:
                  - {id: item, type: return, format: "{{ taskrun.value }}"}
              - {id: last, type: return, format: "{{ outputs.first.value }}"}
            """;
    private static final DeciderSettings SETTINGS = new DeciderSettings(LEASE, 3, RETENTION);

    @Test
    void shouldKeepWhatEndedBeforeTheChosenRunAndStartTheFlowablesAroundIt() {
        // given: an execution that ran to its end
        var ran = ranToTheEnd();
        Execution original = ran.execution();
        TaskRun b = original.taskRuns().stream().filter(r -> "b".equals(r.value())).findFirst().orElseThrow();

        // when
        ReplaySeed seed = ReplaySeed.of(original, b.id(), outputs(ran));

        // then: the first task and the first item are kept, the loop starts again, the rest runs anew
        assertThat(seed.runs()).extracting(ReplaySeed.SeedRun::taskId, ReplaySeed.SeedRun::value,
                ReplaySeed.SeedRun::state).containsExactly(
                Tuple.tuple("first", null, State.SUCCESS),
                Tuple.tuple("each", null, State.CREATED),
                Tuple.tuple("item", "a", State.SUCCESS));
        assertThat(seed.runs().getFirst().outputs()).isEqualTo(Map.of("value", "one"));
        assertThat(seed.fromExecutionId()).isEqualTo(original.id());
        assertThatThrownBy(() -> ReplaySeed.of(original, "nope", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no task run 'nope'");
    }

    @Test
    void shouldStartAgainAFlowableAroundARunCreatedAfterTheChosenOne() {
        // given: two branches side by side; x2 was created before y2
        var driver = ExecutionDriver.flow("""
                id: f
                namespace: io.millrace.tests
                tasks:
                  - id: both
                    type: io.kestra.plugin.core.flow.Parallel
                    tasks:
                      - id: x
                        type: io.kestra.plugin.core.flow.Sequential
                        tasks:
                          - {id: x1, type: return, format: x1}
                          - {id: x2, type: return, format: x2}
                      - id: y
                        type: io.kestra.plugin.core.flow.Sequential
                        tasks:
                          - {id: y1, type: return, format: y1}
                          - {id: y2, type: return, format: y2}
                """);
        driver.create();
        driver.end(driver.runOf("x1"), State.SUCCESS);
        driver.end(driver.runOf("y1"), State.SUCCESS);
        driver.end(driver.runOf("x2"), State.SUCCESS);
        driver.end(driver.runOf("y2"), State.SUCCESS);
        assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);

        // when: replayed from x2
        ReplaySeed seed = ReplaySeed.of(driver.execution(), driver.runOf("x2").id(), outputs(driver));

        // then: y ended, but y2 came after x2: y starts again too, keeping y1
        assertThat(seed.runs()).extracting(ReplaySeed.SeedRun::taskId, ReplaySeed.SeedRun::state)
                .containsExactlyInAnyOrder(Tuple.tuple("both", State.CREATED), Tuple.tuple("x", State.CREATED),
                        Tuple.tuple("y", State.CREATED), Tuple.tuple("x1", State.SUCCESS),
                        Tuple.tuple("y1", State.SUCCESS));
    }

    @Test
    void shouldStartANewExecutionFromTheChosenRunWithWhatItKeeps() {
        // given: the seed of a replay from the second item
        var ran = ranToTheEnd();
        Execution original = ran.execution();
        TaskRun b = original.taskRuns().stream().filter(r -> "b".equals(r.value())).findFirst().orElseThrow();
        ReplaySeed seed = ReplaySeed.of(original, b.id(), outputs(ran));
        var replay = ExecutionDriver.flow(FLOW, "exec-2", SETTINGS);

        // when
        var started = replay.decide(new CreateExecution("exec-2", "io.millrace.tests", "f", null, original.inputs(),
                Map.of(), replay.now(), null, original.lineage().next(original.id()), seed));

        // then: the kept runs are there under the new execution's ids, and only the chosen item runs
        assertThat(dispatchedTaskIds(started)).containsExactly("item");
        Execution execution = replay.execution();
        assertThat(execution.lineage()).isEqualTo(new Lineage(original.id(), 2));
        assertThat(execution.taskRuns()).extracting(TaskRun::taskId, TaskRun::value, TaskRun::state).containsExactly(
                Tuple.tuple("first", null, State.SUCCESS),
                Tuple.tuple("each", null, State.RUNNING),
                Tuple.tuple("item", "a", State.SUCCESS),
                Tuple.tuple("item", "b", State.RUNNING));
        assertThat(execution.taskRuns()).extracting(TaskRun::id).doesNotContainAnyElementsOf(
                original.taskRuns().stream().map(TaskRun::id).toList());
        assertThat(replay.state().outputs(replay.run("first").id())).isEqualTo(Map.of("value", "one"));
        assertThat(Contexts.execution(execution, replay.state(), replay.flow(), null).build().get("execution"))
                .as("what its expressions see").isEqualTo(Map.of("id", "exec-2", "startDate", execution.startDate(),
                        "originalId", original.id()));
        assertThat(replay.run("first").histories().getFirst().date())
                .isEqualTo(original.taskRuns().getFirst().histories().getFirst().date());

        // when: the rest runs
        replay.end(replay.runs("item").get(1), State.SUCCESS);
        replay.end(replay.runs("item").get(2), State.SUCCESS);
        var last = replay.succeed("last", Map.of("value", "one"));

        // then: it ends like a run of its own, the kept first task's outputs read by the last
        assertThat(replay.execution().state()).as("%s", last).isEqualTo(State.SUCCESS);
        assertThat(replay.runs("item")).extracting(TaskRun::value).containsExactly("a", "b", "c");
        assertThat(replay.runs("first")).singleElement().extracting(TaskRun::attempts).isEqualTo(List.of());
    }

    @Test
    void shouldRefuseASeedOverTheTaskRunLimitOrWithARunBeforeItsParent() {
        // given: seeds a gateway would not send, from any producer of commands
        var run = new ReplaySeed.SeedRun("r1", "first", null, null, null, State.SUCCESS, Map.of(), null, ExecutionDriver.T0,
                ExecutionDriver.T0);
        var orphan = new ReplaySeed.SeedRun("r2", "item", "r9", "a", 0, State.SUCCESS, Map.of(), null, ExecutionDriver.T0,
                ExecutionDriver.T0);
        var small = ExecutionDriver.flow(FLOW, "exec-2", new DeciderSettings(LEASE, 3, RETENTION, 1,
                DeciderSettings.DEFAULT_MAX_FLOWABLE_CONCURRENCY, DeciderSettings.DEFAULT_MAX_SUBFLOW_DEPTH));
        var replay = ExecutionDriver.flow(FLOW, "exec-2", SETTINGS);

        // when
        var tooMany = small.decide(start(small, new ReplaySeed("e1", "r3", List.of(run, run))));
        var beforeItsParent = replay.decide(start(replay, new ReplaySeed("e1", "r3", List.of(run, orphan))));

        // then: refused, and nothing started
        assertThat(tooMany.rejection()).hasValueSatisfying(r -> {
            assertThat(r.kind()).isEqualTo(Rejection.Kind.INVALID);
            assertThat(r.reason()).contains("(max-task-runs)", "keeps 2");
        });
        assertThat(beforeItsParent.rejection()).hasValueSatisfying(r -> assertThat(r.reason()).contains("r2"));
        assertThat(replay.state().execution()).isEmpty();
    }

    private static CreateExecution start(ExecutionDriver driver, ReplaySeed seed) {
        return new CreateExecution("exec-2", "io.millrace.tests", "f", null, Map.of(), Map.of(), driver.now(), null,
                new Lineage("e1", 2), seed);
    }

    /** The flow run to SUCCESS, its items each output their value. */
    private static ExecutionDriver ranToTheEnd() {
        var driver = ExecutionDriver.flow(FLOW);
        driver.create();
        driver.succeed("first", Map.of("value", "one"));
        for (int i = 0; i < 3; i++) {
            TaskRun item = driver.runs("item").get(i);
            driver.advance(Duration.ofSeconds(1)).decide(new TaskResult(ExecutionDriver.EXECUTION_ID, item.id(), 1,
                    State.SUCCESS, Map.of("value", item.value()), null, "w", driver.now()));
        }
        driver.succeed("last", Map.of("value", "one"));
        assertThat(driver.execution().state()).isEqualTo(State.SUCCESS);
        return driver;
    }

    /** The outputs of the driver's runs, by task run id, as the read model has them. */
    private static Map<String, Map<String, Object>> outputs(ExecutionDriver driver) {
        var outputs = new HashMap<String, Map<String, Object>>();
        driver.execution().taskRuns().forEach(run -> outputs.put(run.id(), driver.state().outputs(run.id())));
        return outputs;
    }
}
