package io.millrace.core.decide;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.ReplaySeed;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.execution.State;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Inputs;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Starts an execution: refused for an id that exists or has a '/', a flow that is missing or disabled; FAILED at once
 * when its inputs do not resolve; else RUNNING, its first tasks started, or, for a flow with a concurrency limit,
 * CREATED until its flow's slots answer ({@link SlotAnswerHandler}). A replay from a task run starts with the runs it
 * keeps of the execution it replays ({@link ReplaySeed}).
 */
final class CreateHandler implements CommandHandler<CreateExecution> {
    @Override
    public Decision decide(CreateExecution create, DecisionContext context) {
        Flow flow = context.flow();
        if (context.execution().isPresent()) {
            return Decision.rejected(Rejection.Kind.DUPLICATE, "Expected a new execution id, but "
                    + create.executionId() + " exists already");
        }
        if (create.executionId().indexOf('/') >= 0) {
            return Decision.rejected(Rejection.Kind.INVALID, "Expected an execution id without '/', but got "
                    + create.executionId());
        }
        if (flow == null) {
            return refused(create, "Expected flow " + create.namespace() + "/" + create.flowId()
                    + (create.revision() == null ? "" : " revision " + create.revision()) + " to exist, but it was not found",
                    context);
        }
        if (flow.disabled()) {
            return refused(create, "Expected flow " + flow.key() + " to be enabled, but it is disabled", context);
        }
        String badSeed = create.replay() == null ? null : problemOf(create.replay(), context.settings());
        if (badSeed != null) {
            return refused(create, badSeed, context);
        }
        Advance advance = context.advance(flow);
        Step step = advance.step();
        Map<String, Object> inputs;
        try {
            inputs = Inputs.resolve(flow.inputs(), create.inputs());
        } catch (Inputs.InvalidInputsException e) {
            // a SECRET input given in clear (by a trigger or a Subflow) is not written down
            step.emit(created(create, flow, Inputs.redacted(flow.inputs(), create.inputs()), context));
            advance.endExecution(new ExecutionCompleted(State.FAILED, null, e.getMessage(), context.now()));
            return step.decision();
        }
        step.emit(created(create, flow, inputs, context));
        if (create.replay() != null) {
            seed(create.replay(), step);
        }
        if (Places.limited(flow)) {
            step.effect(Places.ask(flow, create.executionId(), context.now()));
            return step.decision(); // CREATED until its flow's slots answer
        }
        step.emit(new ExecutionStateChanged(State.RUNNING, context.now()));
        advance.touch(null);
        advance.run();
        return step.decision();
    }

    /**
     * The runs a replay from a task run keeps, under the ids this execution gives them (so the walk finds them where it
     * would have made them): each ended one with its state, outputs and dates, each flowable around the chosen run
     * CREATED, for the walk to start again around what is kept.
     */
    private static void seed(ReplaySeed replay, Step step) {
        var ids = new HashMap<String, String>();
        for (ReplaySeed.SeedRun run : replay.runs()) {
            String parent = run.parentTaskRunId() == null ? null : ids.get(run.parentTaskRunId());
            String id = TaskRunIds.of(step.executionId(), run.taskId(), parent, run.value(), run.iteration());
            ids.put(run.taskRunId(), id);
            step.emit(new TaskRunCreated(id, run.taskId(), parent, run.value(), run.iteration(), run.createdAt()));
            if (run.state().isTerminal()) {
                step.emit(new TaskRunCompleted(id, run.state(), run.outputs(), run.error(), run.endedAt()));
            }
        }
    }

    /** Why a replay's seed cannot be taken (too many runs, a run before its parent), or null. */
    private static String problemOf(ReplaySeed replay, DeciderSettings settings) {
        if (replay.runs().size() > settings.maxTaskRuns()) {
            return "Expected at most " + settings.maxTaskRuns() + " task runs in one execution (max-task-runs), but the"
                    + " replay keeps " + replay.runs().size();
        }
        var seen = new HashSet<String>();
        for (ReplaySeed.SeedRun run : replay.runs()) {
            if (run.parentTaskRunId() != null && !seen.contains(run.parentTaskRunId()) || !seen.add(run.taskRunId())) {
                return "Expected the task runs a replay keeps once each, each after its parent, but "
                        + run.taskRunId() + " is not";
            }
        }
        return null;
    }

    /** INVALID; a Subflow run that waits for this start is told that it failed. */
    private static Decision refused(CreateExecution create, String reason, DecisionContext context) {
        var effects = Subflows.notStarted(create, reason, context.now())
                .<Effect>map(Effect.SendCommand::new).stream().toList();
        return new Decision(List.of(), effects, Optional.of(new Rejection(Rejection.Kind.INVALID, reason)));
    }

    private static ExecutionCreated created(CreateExecution create, Flow flow, Map<String, Object> inputs,
            DecisionContext context) {
        return new ExecutionCreated(create.executionId(), flow.namespace(), flow.id(), flow.revision(), inputs,
                flow.executionLabels(create.labels(), create.executionId()), create.trigger(), create.lineage(),
                create.requestedAt(), context.now());
    }
}
