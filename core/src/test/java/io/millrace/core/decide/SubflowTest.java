package io.millrace.core.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.SubflowEnded;
import io.millrace.core.command.TaskResult;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Subflows decided one command at a time, parent and child apart as on two executors: the start and the end notice
 * go from one to the other as the commands the decisions send.
 */
class SubflowTest {
    private static final Instant T0 = Instant.parse("2026-11-27T08:00:00Z");
    private static final String CHILD = """
            id: child
            namespace: team
            labels: {childLabel: c}
            inputs:
              - {id: name, type: STRING}
            tasks:
              - {id: greet, type: return, format: "hi {{ inputs.name }}"}
            """;

    private final World world = new World(new DeciderSettings(Duration.ofSeconds(30), 3, Duration.ofDays(1)));
    private final Map<String, Flow> flows = world.flows;
    private final Map<String, InMemoryExecutionState> states = world.states;
    private final Decider decider = world.decider;

    /** Flows, executions and one decider for all of them, as the executors of one cluster see them. */
    private static final class World {
        final Map<String, Flow> flows = new HashMap<>();
        final Map<String, InMemoryExecutionState> states = new HashMap<>();
        final Decider decider;

        World(DeciderSettings settings) {
            decider = new Decider(settings, new Expressions(), (namespace, id, revision) -> flows.get(namespace + "/" + id));
            deploy(CHILD);
        }

        void deploy(String yaml) {
            try {
                Flow flow = new FlowParser().parse(yaml).withRevision(1);
                flows.put(flow.namespace() + "/" + flow.id(), flow);
            } catch (FlowValidationException e) {
                throw new AssertionError(e.problems().toString(), e);
            }
        }

        Decision decide(Command command) {
            var state = states.computeIfAbsent(command.executionId(), id -> new InMemoryExecutionState());
            Flow flow = command instanceof CreateExecution create ? flows.get(create.namespace() + "/" + create.flowId())
                    : state.execution().map(e -> flows.get(e.namespace() + "/" + e.flowId())).orElse(null);
            return decider.decide(state, flow, command, T0);
        }

        Execution execution(String id) {
            return states.get(id).execution().orElseThrow();
        }
    }

    private void deploy(String yaml) {
        world.deploy(yaml);
    }

    private Decision decide(Command command) {
        return world.decide(command);
    }

    private Execution execution(String id) {
        return world.execution(id);
    }

    private static <C extends Command> C sent(Decision decision, Class<C> type) {
        List<C> found = decision.effects().stream().filter(Effect.SendCommand.class::isInstance)
                .map(e -> ((Effect.SendCommand) e).command()).filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as("%s sent by %s", type.getSimpleName(), decision.effects()).hasSize(1);
        return found.getFirst();
    }

    private Decision startParent(String subflowTask) {
        deploy("id: parent\nnamespace: team\nlabels: {parentLabel: p}\ntasks:\n" + subflowTask
                + "  - {id: after, type: log, message: m}\n");
        return decide(new CreateExecution("p1", "team", "parent", null, Map.of(), Map.of("run", "r1"), T0));
    }

    /** Runs the child to its end: its one task answers {@code state}. */
    private Decision runChild(CreateExecution create, State state) {
        decide(create);
        TaskRun greet = execution(create.executionId()).taskRuns().getFirst();
        return decide(new TaskResult(create.executionId(), greet.id(), 1, state,
                state == State.SUCCESS ? Map.of("value", "hi ada") : Map.of(), state == State.FAILED ? "boom" : null,
                "w", T0));
    }

    @Test
    void shouldStartTheChildWithItsInputsAndLabelsThenEndAsItEndsWithItsOutputs() {
        // when
        var started = startParent("""
                  - id: call
                    type: io.kestra.plugin.core.flow.Subflow
                    namespace: team
                    flowId: child
                    inputs: {name: ada}
                    labels: {callLabel: "{{ execution.id }}"}
                    outputs: {greeting: "{{ outputs.greet.value }}"}
                """);

        // then: the child is asked for, the run waits
        CreateExecution create = sent(started, CreateExecution.class);
        TaskRun call = execution("p1").taskRuns().getFirst();
        assertThat(call.state()).isEqualTo(State.RUNNING);
        assertThat(create.executionId()).isEqualTo(TaskRunIds.childExecution("p1", call.id(), 1));
        assertThat(create.inputs()).isEqualTo(Map.of("name", "ada"));
        assertThat(create.labels()).isEqualTo(Map.of("system.correlationId", "p1", "callLabel", "p1"));
        assertThat(create.trigger().type()).isEqualTo("io.kestra.plugin.core.flow.Subflow");
        assertThat(create.trigger().variables()).containsEntry("executionId", "p1").containsEntry("flowId", "parent")
                .containsEntry("namespace", "team").containsEntry("flowRevision", 1);

        // when: the child runs and ends
        Decision childEnded = runChild(create, State.SUCCESS);
        SubflowEnded notice = sent(childEnded, SubflowEnded.class);
        assertThat(execution(create.executionId()).labels()).containsEntry("system.correlationId", "p1")
                .containsEntry("childLabel", "c");
        decide(notice);

        // then
        TaskRun ended = execution("p1").taskRuns().getFirst();
        assertThat(ended.state()).isEqualTo(State.SUCCESS);
        assertThat(states.get("p1").outputs(ended.id())).isEqualTo(Map.of("executionId", create.executionId(),
                "state", "SUCCESS", "outputs", Map.of("greeting", "hi ada")));
        assertThat(execution("p1").taskRuns()).extracting(TaskRun::taskId).containsExactly("call", "after");
        assertThat(decide(notice).rejection()).as("the notice sent again").hasValueSatisfying(r ->
                assertThat(r.kind()).isEqualTo(Rejection.Kind.STALE));
    }

    @Test
    void shouldFailAsTheChildFailsWhenItTransmitsFailuresAndWarnWhenFailureIsAllowed() {
        // given
        startParent("""
                  - {id: call, type: subflow, namespace: team, flowId: child, inputs: {name: x}, allowFailure: true}
                """);
        CreateExecution create = sent(decide(new CreateExecution("p2", "team", "parent", null, Map.of(), Map.of(), T0)),
                CreateExecution.class);

        // when
        decide(sent(runChild(create, State.FAILED), SubflowEnded.class));

        // then: FAILED, tolerated as WARNING
        TaskRun call = execution("p2").taskRuns().getFirst();
        assertThat(call.state()).isEqualTo(State.WARNING);
        assertThat(call.error()).contains(create.executionId()).contains("FAILED");
    }

    @Test
    void shouldFailTheRunWhenTheChildFlowIsMissingOrTooDeep() {
        // when
        startParent("""
                  - {id: call, type: io.kestra.plugin.core.flow.Flow, namespace: team, flowId: nowhere}
                """);

        // then
        TaskRun call = execution("p1").taskRuns().getFirst();
        assertThat(call.state()).isEqualTo(State.FAILED);
        assertThat(call.error()).isEqualTo("Expected flow team/nowhere to exist, but it was not found");
        assertThat(execution("p1").state()).isEqualTo(State.FAILED);

        // and when: a flow that calls itself, one level allowed
        var shallow = new World(new DeciderSettings(Duration.ofSeconds(30), 3, Duration.ofDays(1), 100, 100, 1));
        shallow.deploy("""
                id: loop
                namespace: team
                tasks:
                  - {id: again, type: subflow, namespace: team, flowId: loop}
                """);
        CreateExecution first = sent(shallow.decide(new CreateExecution("l0", "team", "loop", null, Map.of(), Map.of(), T0)),
                CreateExecution.class);
        var second = shallow.decide(first);

        // then: the child's own Subflow run fails at the limit, and the child with it
        assertThat(second.effects()).noneMatch(e -> e instanceof Effect.SendCommand send
                && send.command() instanceof CreateExecution);
        assertThat(shallow.execution(first.executionId()).taskRuns().getFirst().error())
                .isEqualTo("Expected subflows nested at most 1 deep (max-subflow-depth), but this one would start an "
                        + "execution 2 deep");
        assertThat(shallow.execution(first.executionId()).state()).isEqualTo(State.FAILED);
        assertThat(sent(second, SubflowEnded.class).state()).isEqualTo(State.FAILED);
    }

    @Test
    void shouldGoOnAtOnceWithoutWaitAndSendNoNoticeThen() {
        // when
        var started = startParent("""
                  - {id: call, type: subflow, namespace: team, flowId: child, inputs: {name: x}, wait: false}
                """);

        // then
        CreateExecution create = sent(started, CreateExecution.class);
        TaskRun call = execution("p1").taskRuns().getFirst();
        assertThat(call.state()).isEqualTo(State.SUCCESS);
        assertThat(states.get("p1").outputs(call.id())).isEqualTo(Map.of("executionId", create.executionId()));
        assertThat(runChild(create, State.SUCCESS).effects()).noneMatch(Effect.SendCommand.class::isInstance);
    }

    @Test
    void shouldKillTheChildWithTheParentAndSendTheStartAndNoticeAgainFromTheStoredState() {
        // given
        CreateExecution create = sent(startParent("""
                  - {id: call, type: subflow, namespace: team, flowId: child, inputs: {name: x}}
                """), CreateExecution.class);

        // then: a stored running subflow implies its child's start, the same one
        assertThat(decider.reemit(states.get("p1"), flows.get("team/parent")).effects())
                .contains(new Effect.SendCommand(create));

        // when: the child ended and its state is read again (its notice may have been lost in a crash)
        SubflowEnded notice = sent(runChild(create, State.SUCCESS), SubflowEnded.class);

        // then
        assertThat(decider.reemit(states.get(create.executionId()), flows.get("team/child")).effects())
                .contains(new Effect.SendCommand(new SubflowEnded(notice.executionId(), notice.taskRunId(),
                        notice.attempt(), notice.childExecutionId(), notice.state(), notice.outputs(), notice.error(),
                        execution(create.executionId()).histories().getLast().date())));

        // and when: another parent is killed while its child runs
        startParent("""
                  - {id: call, type: subflow, namespace: team, flowId: child, inputs: {name: x}}
                """);
        CreateExecution other = sent(decide(new CreateExecution("p3", "team", "parent", null, Map.of(), Map.of(), T0)),
                CreateExecution.class);
        var killed = decide(new KillExecution("p3", T0));

        // then
        assertThat(sent(killed, KillExecution.class).executionId()).isEqualTo(other.executionId());

        // and when: a third parent is killed without the cascade
        decide(new CreateExecution("p4", "team", "parent", null, Map.of(), Map.of(), T0));
        var alone = decide(new KillExecution("p4", T0, false));

        // then: it ends KILLED, its child is left running
        assertThat(execution("p4").state()).isEqualTo(State.KILLED);
        assertThat(alone.effects()).noneMatch(Effect.SendCommand.class::isInstance);
    }

    @Test
    void shouldPassAnEncryptedSecretInputOnAsItIsAndFailAChildGivenOneInClearWithoutWritingItDown() {
        // given
        deploy("""
                id: vault
                namespace: team
                inputs:
                  - {id: pw, type: SECRET}
                tasks:
                  - {id: use, type: return, format: "{{ inputs.pw }}"}
                """);
        deploy("""
                id: caller
                namespace: team
                inputs:
                  - {id: pw, type: SECRET}
                tasks:
                  - {id: passOn, type: io.kestra.plugin.core.flow.Subflow, namespace: team, flowId: vault,
                     inputs: {pw: "{{ inputs.pw }}"}}
                """);
        String encrypted = io.millrace.core.flow.InputCipher.PREFIX + "q83vEjRWeJA+/w==";

        // when
        var passed = sent(decide(new CreateExecution("c1", "team", "caller", null, Map.of("pw", encrypted), Map.of(),
                T0)), CreateExecution.class);
        decide(passed);
        // as a Subflow task whose input is a literal sends it
        decide(new CreateExecution("c2", "team", "vault", null, Map.of("pw", "hunter2-in-the-flow"), Map.of(), T0));

        // then
        assertThat(passed.inputs()).containsEntry("pw", encrypted);
        assertThat(execution(passed.executionId()).state()).isEqualTo(State.RUNNING);
        assertThat(execution(passed.executionId()).inputs()).containsEntry("pw", encrypted);
        Execution failed = execution("c2");
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.error()).startsWith("Expected input 'pw' (SECRET) to be encrypted by the gateway");
        assertThat(failed.inputs()).containsEntry("pw", "******");
    }
}
