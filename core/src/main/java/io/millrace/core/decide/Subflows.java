package io.millrace.core.decide;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.SubflowEnded;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Subflow;
import io.millrace.core.flow.TaskTypes;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How a Subflow run starts its child, and how the child tells it that it ended. Both travel as commands on the
 * commands topic, keyed by the execution they are for, so parent and child may live on different partitions and
 * executors: each is sent in the transaction of the decision that made it, and each is idempotent (the child's id
 * comes from the run's attempt, so a start sent again is a duplicate; a notice for a run that moved on is STALE). The
 * child's trigger names the parent (Kestra's {@code executionId}, {@code namespace}, {@code flowId} and
 * {@code flowRevision}) and the run and attempt to notify. The live decision and {@link ImpliedEffects} build both
 * here.
 */
final class Subflows {
    static final String EXECUTION_ID = "executionId";
    static final String NAMESPACE = "namespace";
    static final String FLOW_ID = "flowId";
    static final String FLOW_REVISION = "flowRevision";
    static final String TASK_RUN_ID = "taskRunId";
    static final String ATTEMPT = "taskRunAttempt";
    static final String DEPTH = "depth";

    private final Expressions expressions;
    private final FlowSource flows;
    private final DeciderSettings settings;

    Subflows(Expressions expressions, FlowSource flows, DeciderSettings settings) {
        this.expressions = expressions;
        this.flows = flows;
        this.settings = settings;
    }

    /**
     * The start of the child of {@code run}'s current attempt: its inputs and labels rendered in the run's context.
     *
     * @throws Scope.Failure when it cannot start: too deep, the child's flow missing or disabled, an expression
     */
    CreateExecution start(Execution parent, ExecutionView state, Flow flow, TaskRun run, Subflow task, Instant now)
            throws Scope.Failure {
        int depth = depth(parent) + 1;
        if (depth > settings.maxSubflowDepth()) {
            throw new Scope.Failure("Expected subflows nested at most " + settings.maxSubflowDepth()
                    + " deep (max-subflow-depth), but this one would start an execution " + depth + " deep");
        }
        Flow child = flows.find(task.namespace(), task.flowId(), task.revision());
        if (child == null) {
            throw new Scope.Failure("Expected flow " + task.namespace() + "/" + task.flowId()
                    + (task.revision() == null ? "" : " revision " + task.revision()) + " to exist, but it was not found");
        }
        if (child.disabled()) {
            throw new Scope.Failure("Expected flow " + child.key() + " to be enabled, but it is disabled");
        }
        Map<String, Object> variables = Contexts.taskRun(parent, state, flow, run, task);
        Map<String, Object> inputs;
        var labels = new LinkedHashMap<String, String>();
        parent.labels().forEach((key, value) -> {
            if (task.inheritLabels() || key.startsWith("system.")) {
                labels.put(key, value);
            }
        });
        try {
            @SuppressWarnings("unchecked")
            var rendered = (Map<String, Object>) expressions.renderDeep(task.inputs(), variables);
            inputs = rendered;
            for (var label : task.labels().entrySet()) {
                labels.put(expressions.render(label.getKey(), variables), expressions.render(label.getValue(), variables));
            }
        } catch (ExpressionException e) {
            throw Scope.Failure.of(e);
        }
        int attempt = run.currentAttempt().orElseThrow().number();
        var trigger = new ExecutionTrigger(task.id(), task.type(), Map.of(EXECUTION_ID, parent.id(),
                NAMESPACE, parent.namespace(), FLOW_ID, parent.flowId(), FLOW_REVISION, parent.flowRevision(),
                TASK_RUN_ID, run.id(), ATTEMPT, attempt, DEPTH, depth));
        return new CreateExecution(TaskRunIds.childExecution(parent.id(), run.id(), attempt), child.namespace(),
                child.id(), child.revision(), inputs, labels, now, trigger);
    }

    /**
     * A Subflow run's new attempt: its child starts (and, without {@code wait}, the run ends at once with the child's
     * id); a child that cannot start fails the attempt.
     */
    void startAttempt(Advance advance, TaskRun run, Subflow task) {
        Step step = advance.step();
        CreateExecution create;
        try {
            create = start(step.execution(), step.state(), advance.flow(), run, task, advance.now());
        } catch (Scope.Failure e) {
            advance.life().end(run, task, State.FAILED, Map.of(), e.getMessage(), null);
            return;
        }
        step.effect(new Effect.SendCommand(create));
        if (task.options().timeout() != null) {
            step.effect(new Effect.ScheduleTimer(Timers.timeout(step.executionId(), run, task)));
        }
        if (!task.waits()) {
            advance.life().complete(run, State.SUCCESS, Map.of(EXECUTION_ID, create.executionId()), null, null);
        }
    }

    /**
     * The notice to the parent of an ended {@code child}, when a Subflow run waits for it: its state, and its outputs
     * as the Subflow task asks for them (the child flow's own {@code outputs} when it declares some, else the task's
     * {@code outputs} rendered in the child's context).
     */
    Optional<SubflowEnded> ended(Execution child, ExecutionView state, Flow childFlow, Instant now) {
        ExecutionTrigger trigger = child.trigger();
        if (!startedBySubflow(trigger) || child.state() == State.RETRIED) { // its retry, with its trigger, tells
            return Optional.empty();
        }
        Map<String, Object> parent = trigger.variables();
        Flow parentFlow = flows.find(String.valueOf(parent.get(NAMESPACE)), String.valueOf(parent.get(FLOW_ID)),
                parent.get(FLOW_REVISION) instanceof Number revision ? revision.intValue() : null);
        Subflow task = parentFlow == null ? null
                : parentFlow.task(trigger.id()).filter(Subflow.class::isInstance).map(Subflow.class::cast).orElse(null);
        if (task != null && !task.waits()) {
            return Optional.empty();
        }
        Map<String, Object> outputs = null;
        String error = null;
        if (childFlow != null && !childFlow.outputs().isEmpty()) {
            outputs = child.outputs();
        } else if (task != null && !task.outputs().isEmpty() && childFlow != null) {
            try {
                @SuppressWarnings("unchecked")
                var rendered = (Map<String, Object>) expressions.renderDeep(task.outputs(),
                        Contexts.execution(child, state, childFlow, null).build());
                outputs = rendered;
            } catch (ExpressionException e) {
                error = "The outputs of subflow execution " + child.id() + " did not render: " + e.getMessage();
            }
        }
        return notice(trigger, child.id(), child.state(), outputs, error, now);
    }

    /** The notice to the parent that the child {@code create} asks for could not start, for {@code reason}. */
    static Optional<SubflowEnded> notStarted(CreateExecution create, String reason, Instant now) {
        return notice(create.trigger(), create.executionId(), State.FAILED, null, reason, now);
    }

    /** The notice to the run a child's {@code trigger} names, if a Subflow run started it. */
    private static Optional<SubflowEnded> notice(ExecutionTrigger trigger, String childId, State state,
            Map<String, Object> outputs, String error, Instant now) {
        if (!startedBySubflow(trigger)) {
            return Optional.empty();
        }
        Map<String, Object> link = trigger.variables();
        return Optional.of(new SubflowEnded(String.valueOf(link.get(EXECUTION_ID)), (String) link.get(TASK_RUN_ID),
                ((Number) link.get(ATTEMPT)).intValue(), childId, state, outputs, error, now));
    }

    /** Whether a Subflow run started the execution of {@code trigger}, naming the run and attempt to tell. */
    private static boolean startedBySubflow(ExecutionTrigger trigger) {
        return trigger != null && TaskTypes.SUBFLOWS.contains(trigger.type())
                && trigger.variables().get(TASK_RUN_ID) instanceof String
                && trigger.variables().get(ATTEMPT) instanceof Number;
    }

    /** The kill of the child a running Subflow run's attempt started (the kill of a parent reaches its children). */
    static Effect kill(String executionId, TaskRun run, Instant now) {
        return new Effect.SendCommand(new KillExecution(TaskRunIds.childExecution(executionId, run.id(),
                run.currentAttempt().orElseThrow().number()), now));
    }

    /** How deep an execution is: 0 unless a Subflow run started it. */
    private static int depth(Execution execution) {
        ExecutionTrigger trigger = execution.trigger();
        return trigger != null && TaskTypes.SUBFLOWS.contains(trigger.type())
                && trigger.variables().get(DEPTH) instanceof Number depth ? depth.intValue() : 0;
    }
}
