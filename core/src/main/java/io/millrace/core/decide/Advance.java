package io.millrace.core.decide;

import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.OutputDef;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.Sequential;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.TaskOptions;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * One decision's walk through the task tree. Starting and ending runs ({@link RunLife}) marks the flowable they run in
 * as touched; {@link #run()} then lets each touched flowable (the flow's root included) pick the children that start
 * next, or end by what its children did ({@link PlanWalk}), which touches its own parent: one propagation step per
 * level, up to the execution, whose end is here too.
 */
final class Advance {
    private final Step step;
    private final Flow flow;
    private final Instant now;
    private final DecisionContext.Parts parts;
    private final Sequential root;
    private final RunLife life;
    private final PlanWalk walk;
    /** Flowable run ids (and {@link TaskRuns#ROOT}) to look at again, in the order they were touched. */
    private final LinkedHashSet<String> touched = new LinkedHashSet<>();

    Advance(Step step, Flow flow, Instant now, DecisionContext.Parts parts) {
        this.step = step;
        this.flow = flow;
        this.now = now;
        this.parts = parts;
        this.root = new Sequential("", TaskOptions.DEFAULTS, flow.tasks(), flow.errors(), flow.finallyTasks());
        this.life = new RunLife(this, parts.settings());
        this.walk = new PlanWalk(this, parts.settings(), parts.behaviours(), parts.plans());
    }

    Step step() {
        return step;
    }

    Flow flow() {
        return flow;
    }

    Instant now() {
        return now;
    }

    /** How runs start, end and are reset in this decision. */
    RunLife life() {
        return life;
    }

    Subflows subflows() {
        return parts.subflows();
    }

    /** The execution's task runs as they stand now. */
    TaskRuns runs() {
        return step.execution().runs();
    }

    void touch(String flowableRunId) {
        touched.add(flowableRunId == null ? TaskRuns.ROOT : flowableRunId);
    }

    /**
     * Looks at every touched flowable until none is left; ends the execution when its root is done. Only a RUNNING
     * execution starts anything: a PAUSED one, or one waiting for a place ({@link Places}), when it goes on.
     */
    void run() {
        while (!touched.isEmpty() && step.execution().state() == State.RUNNING) {
            String next = touched.getFirst();
            touched.remove(next);
            if (next.equals(TaskRuns.ROOT)) {
                progressRoot();
            } else {
                progress(next);
            }
        }
    }

    private void progressRoot() {
        if (walk.walk(root, null, new RunScope(null, null)) instanceof PlanWalk.Outcome.Done done) {
            life.skipRestartLeftovers();
            endExecution(done);
        }
    }

    private void progress(String runId) {
        TaskRun run = runs().get(runId);
        if (run == null || run.state() != State.RUNNING) {
            return;
        }
        TaskDef task = flow.task(run.taskId()).orElse(null);
        if (!(task instanceof Flowable flowable)) {
            life.end(run, task, State.FAILED, Map.of(), "Expected '" + run.taskId() + "' to be a flowable of the flow, "
                    + "but it is not", null);
            return;
        }
        if (parts.behaviours().of(flowable).holds(flowable, run) && flowable instanceof Pause pause) {
            Pausing.hold(this, run, pause);
            return;
        }
        var scope = new RunScope(run, flowable);
        if (walk.walk(flowable, run.id(), scope) instanceof PlanWalk.Outcome.Done done) {
            Map<String, Object> outputs = Map.of();
            State state = parts.behaviours().of(flowable).outcome(flowable, done.state());
            String error = done.error();
            try {
                outputs = parts.behaviours().of(flowable).outputs(flowable, scope);
            } catch (Scope.Failure e) {
                state = State.FAILED;
                error = e.getMessage();
            }
            if (flowable.options().timeout() != null) {
                step.effect(new Effect.CancelTimer(Timers.timeout(step.executionId(), run, flowable)));
            }
            life.skipReset(run.id());
            life.end(run, flowable, state, outputs, state.isFailure() ? error : null, null);
        }
    }

    private void endExecution(PlanWalk.Outcome.Done done) {
        if (done.state() == State.FAILED) {
            endExecution(new ExecutionCompleted(State.FAILED, null, done.error(), now));
            return;
        }
        try {
            endExecution(new ExecutionCompleted(done.state(), renderOutputs(), null, now));
        } catch (ExpressionException e) {
            endExecution(new ExecutionCompleted(State.FAILED, null, "Flow outputs failed: " + e.getMessage(), now));
        }
    }

    /** Ends the execution (telling a Subflow run that waits for it), and keeps it for the retention, then purges it. */
    void endExecution(ExecutionCompleted completed) {
        step.emit(completed);
        parts.subflows().ended(step.execution(), step.state(), flow, now)
                .ifPresent(notice -> step.effect(new Effect.SendCommand(notice)));
        step.effect(new Effect.ScheduleTimer(Timers.purge(step.execution(), completed.at(), parts.settings())));
        Places.giveBack(step, flow, now);
    }

    private Map<String, Object> renderOutputs() throws ExpressionException {
        if (flow.outputs().isEmpty()) {
            return null;
        }
        Map<String, Object> variables = Contexts.execution(step.execution(), step.state(), flow, flow.outputReferences()).build();
        var outputs = new LinkedHashMap<String, Object>();
        for (OutputDef output : flow.outputs()) {
            outputs.put(output.id(), parts.expressions().renderDeep(output.value(), variables));
        }
        return outputs;
    }

    /** Renders one of a run's own expressions (its runIf) in the run's context. */
    String render(String template, TaskRun run, TaskDef task) throws ExpressionException {
        return parts.expressions().render(template, Contexts.taskRun(step.execution(), step.state(), flow, run, task));
    }

    /** A flowable's run, its expressions rendered in its own context. */
    private final class RunScope implements Scope {
        private final TaskRun run;
        private final TaskDef task;

        RunScope(TaskRun run, TaskDef task) {
            this.run = run;
            this.task = task;
        }

        @Override
        public TaskRun run() {
            return run;
        }

        @Override
        public Object renderDeep(Object value) throws Failure {
            try {
                Map<String, Object> variables = run == null
                        ? Contexts.execution(step.execution(), step.state(), flow, flow.outputReferences()).build()
                        : Contexts.taskRun(step.execution(), step.state(), flow, runs().get(run.id()), task);
                return parts.expressions().renderDeep(value, variables);
            } catch (ExpressionException e) {
                throw Failure.of(e);
            }
        }
    }
}
