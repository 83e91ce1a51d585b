package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunReset;
import io.millrace.core.event.TaskRunRetrying;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.cache.LruCache;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Expressions;
import io.millrace.core.expression.Truth;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.OutputDef;
import io.millrace.core.flow.RetryPolicy;
import io.millrace.core.flow.Sequential;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.TaskOptions;
import io.millrace.core.flow.WorkerTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One decision's walk through the task tree. Starting and ending runs marks the flowable they run in as touched;
 * {@link #run()} then lets each touched flowable (the flow's root included) pick the children that start next, or
 * end by what its children did, which touches its own parent: one propagation step per level, up to the execution.
 */
final class Advance {
    private final Step step;
    private final Flow flow;
    private final Instant now;
    private final DeciderSettings settings;
    private final Expressions expressions;
    private final Behaviours behaviours;
    private final Sequential root;
    /** Flowable run ids (and {@link TaskRuns#ROOT}) to look at again, in the order they were touched. */
    private final LinkedHashSet<String> touched = new LinkedHashSet<>();
    /** Flowable attempts' plans, kept across decisions by the decider. */
    private final LruCache<String, Lanes> plans;

    Advance(Step step, Flow flow, Instant now, DeciderSettings settings, Expressions expressions, Behaviours behaviours,
            LruCache<String, Lanes> plans) {
        this.plans = plans;
        this.step = step;
        this.flow = flow;
        this.now = now;
        this.settings = settings;
        this.expressions = expressions;
        this.behaviours = behaviours;
        this.root = new Sequential("", TaskOptions.DEFAULTS, flow.tasks(), flow.errors(), flow.finallyTasks());
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

    /** The execution's task runs as they stand now. */
    TaskRuns runs() {
        return step.execution().runs();
    }

    void touch(String flowableRunId) {
        touched.add(flowableRunId == null ? TaskRuns.ROOT : flowableRunId);
    }

    /** Looks at every touched flowable until none is left; ends the execution when its root is done. */
    void run() {
        while (!touched.isEmpty() && !step.execution().state().isTerminal()) {
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
        Walk walk = walk(root, null, new RunScope(null, null));
        if (walk instanceof Walk.Done done) {
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
            end(run, task, State.FAILED, Map.of(), "Expected '" + run.taskId() + "' to be a flowable of the flow, but it is not");
            return;
        }
        var scope = new RunScope(run, flowable);
        if (walk(flowable, run.id(), scope) instanceof Walk.Done done) {
            Map<String, Object> outputs = Map.of();
            State state = behaviours.of(flowable).outcome(flowable, done.state());
            String error = done.error();
            try {
                outputs = behaviours.of(flowable).outputs(flowable, scope);
            } catch (Scope.Failure e) {
                state = State.FAILED;
                error = e.getMessage();
            }
            if (flowable.options().timeout() != null) {
                step.effect(new Effect.CancelTimer(timeoutTimer(run, flowable)));
            }
            skipReset(run);
            end(run, flowable, state, outputs, state.isFailure() ? error : null);
        }
    }

    /** Where a flowable stands: it started children, waits for running ones, or is done. */
    sealed interface Walk {
        record Busy() implements Walk {
        }

        record Done(State state, String error) implements Walk {
        }
    }

    private static final Walk BUSY = new Walk.Busy();

    /** The main branch by the flowable's plan, then errors when it failed, then finally; starts what may start. */
    private Walk walk(Flowable flowable, String parentId, Scope scope) {
        TaskRuns runs = runs();
        Set<String> mainIds = ids(flowable.mainTasks());
        TaskRun failedMain = runs.failedChildren(parentId).stream()
                .filter(run -> mainIds.contains(run.taskId())).findFirst().orElse(null);
        boolean mainRunning = runs.openChildren(parentId).stream().anyMatch(run -> mainIds.contains(run.taskId()));
        if (failedMain == null) {
            Lanes lanes;
            try {
                lanes = lanes(flowable, scope);
            } catch (Scope.Failure e) {
                return mainRunning ? BUSY : new Walk.Done(State.FAILED, e.getMessage());
            }
            if (!walkPlan(lanes, parentId)) {
                return BUSY;
            }
        } else if (mainRunning) {
            return BUSY;
        } else if (!flowable.errors().isEmpty() && !walkPlan(new Lanes(Plan.sequence(flowable.errors())), parentId)) {
            return BUSY;
        }
        if (!walkPlan(new Lanes(Plan.sequence(flowable.finallyTasks())), parentId)) {
            return BUSY;
        }
        return outcome(flowable, parentId, failedMain);
    }

    /**
     * A flowable attempt's plan and how far its lanes are done: lanes before {@code done} have all ended. The plan is
     * made once per attempt (a ForEach renders its values once), and the walk starts at {@code done}, so a step of a
     * loop over thousands of values looks at the lanes that run, not at all of them.
     */
    static final class Lanes {
        final Plan plan;
        int done;

        Lanes(Plan plan) {
            this.plan = plan;
        }
    }

    private Lanes lanes(Flowable flowable, Scope scope) throws Scope.Failure {
        TaskRun run = scope.run();
        if (run == null) {
            return new Lanes(behaviours.of(flowable).plan(flowable, scope));
        }
        String key = step.executionId() + '/' + run.id() + '/' + run.attempts().size();
        Lanes cached = plans.get(key);
        if (cached == null) {
            cached = new Lanes(behaviours.of(flowable).plan(flowable, scope));
            plans.put(key, cached);
        }
        return cached;
    }

    /**
     * Starts what the plan allows; true once every lane is done (or one failed and none still runs). Lanes start in
     * order, so past the first lane that has not started, none has.
     */
    private boolean walkPlan(Lanes lanes, String parentId) {
        List<Plan.Lane> all = lanes.plan.lanes();
        int limit = Math.min(lanes.plan.concurrency() == 0 ? Integer.MAX_VALUE : lanes.plan.concurrency(),
                settings.maxFlowableConcurrency());
        int inProgress = 0;
        var continuing = new ArrayList<Plan.Child>();
        var fresh = new ArrayList<Plan.Child>();
        boolean allDoneSoFar = true;
        for (int i = lanes.done; i < all.size(); i++) {
            LaneState lane = laneState(all.get(i), parentId);
            if (lane.done()) {
                if (allDoneSoFar) {
                    lanes.done = i + 1;
                }
                continue;
            }
            allDoneSoFar = false;
            if (!lane.started()) {
                if (inProgress + fresh.size() >= limit) {
                    break;
                }
                fresh.add(lane.next());
                continue;
            }
            inProgress++;
            if (lane.next() != null) {
                continuing.add(lane.next());
            }
        }
        if (allDoneSoFar) {
            return true;
        }
        var starts = new ArrayList<>(continuing);
        starts.addAll(fresh);
        for (Plan.Child child : starts) {
            start(child, parentId);
        }
        return false;
    }

    /** Where one lane stands: done (every child ended, or one failed), and else its next child to start, if any. */
    private record LaneState(boolean done, boolean started, Plan.Child next) {
    }

    private LaneState laneState(Plan.Lane lane, String parentId) {
        boolean started = false;
        for (Plan.Child child : lane.children()) {
            TaskRun run = runs().find(parentId, child.task().id(), child.iteration());
            if (run == null || run.state() == State.CREATED) {
                return new LaneState(false, started, child);
            }
            started = true;
            if (!run.state().isTerminal()) {
                return new LaneState(false, true, null);
            }
            if (run.state().isFailure()) {
                return new LaneState(true, true, null); // the flowable sees the failure in its outcome
            }
        }
        return new LaneState(true, started, null);
    }

    private Walk.Done outcome(Flowable flowable, String parentId, TaskRun failedMain) {
        if (failedMain != null) {
            return new Walk.Done(State.FAILED, describe(failedMain));
        }
        Set<String> finallyIds = ids(flowable.finallyTasks());
        for (TaskRun child : runs().failedChildren(parentId)) {
            if (finallyIds.contains(child.taskId())) {
                return new Walk.Done(State.FAILED, describe(child));
            }
        }
        return new Walk.Done(runs().anyChildWarning(parentId) ? State.WARNING : State.SUCCESS, null);
    }

    private static Set<String> ids(List<TaskDef> tasks) {
        var ids = new HashSet<String>(tasks.size() * 2);
        tasks.forEach(t -> ids.add(t.id()));
        return ids;
    }

    static String describe(TaskRun run) {
        return "Task '" + run.taskId() + "' ended " + run.state() + (run.error() == null ? "" : ": " + run.error());
    }

    /** Creates the child's run (or takes the one a retried parent reset), then starts it unless its runIf says no. */
    private void start(Plan.Child child, String parentId) {
        TaskDef task = child.task();
        String id = TaskRunIds.of(step.executionId(), task.id(), parentId, child.value(), child.iteration());
        boolean overLimit = false;
        if (runs().get(id) == null) {
            overLimit = runs().size() >= settings.maxTaskRuns();
            step.emit(new TaskRunCreated(id, task.id(), parentId, child.value(), child.iteration(), now));
        }
        TaskRun run = runs().get(id);
        if (overLimit) {
            complete(run, State.FAILED, Map.of(), "Expected at most " + settings.maxTaskRuns()
                    + " task runs in one execution (max-task-runs), but this one would be run " + runs().size());
            return;
        }
        if (task.options().runIf() != null) {
            try {
                String rendered = expressions.render(task.options().runIf(), variables(run, task));
                if (!Truth.isTruthy(rendered)) {
                    complete(run, State.SKIPPED, Map.of(), null);
                    return;
                }
            } catch (ExpressionException e) {
                complete(run, State.FAILED, Map.of(), "runIf: " + e.getMessage());
                return;
            }
        }
        startAttempt(run, task);
    }

    /** A new attempt: a worker task is dispatched with a lease; a flowable starts picking its children. */
    void startAttempt(TaskRun run, TaskDef task) {
        int attempt = run.attempts().size() + 1;
        if (task instanceof WorkerTask workerTask) {
            Instant until = now.plus(settings.lease());
            step.emit(new TaskRunAttemptStarted(run.id(), attempt, until, now));
            step.effect(new Effect.DispatchTask(step.executionId(), run.id(), attempt, workerTask));
            step.effect(new Effect.ScheduleTimer(leaseTimer(step.executionId(), run.id(), attempt, until)));
        } else {
            step.emit(new TaskRunAttemptStarted(run.id(), attempt, null, now));
            TaskRun started = runs().get(run.id());
            if (task.options().timeout() != null) {
                step.effect(new Effect.ScheduleTimer(timeoutTimer(started, task)));
            }
            touch(run.id());
        }
    }

    /**
     * Ends an attempt as it ended: a failure the task's retry policy allows to try again makes the run RETRYING until
     * a timer; otherwise the run ends, its state shaped by {@code warningOnRetry}, {@code allowFailure} and
     * {@code allowWarning}.
     */
    void end(TaskRun run, TaskDef task, State state, Map<String, Object> outputs, String error) {
        TaskOptions options = task == null ? TaskOptions.DEFAULTS : task.options();
        RetryPolicy retry = options.retry();
        Attempt current = run.currentAttempt().orElse(null);
        if (state == State.FAILED && retry != null && current != null) {
            Instant at = nextAttemptAt(retry, run, now);
            if (at != null) {
                step.emit(new TaskRunRetrying(run.id(), current.number(), error, at, now));
                step.effect(new Effect.ScheduleTimer(new Timer(step.executionId(), Timer.Kind.RETRY, run.id(),
                        current.number(), at)));
                return;
            }
        }
        State ended = state;
        if (ended == State.SUCCESS && retry != null && retry.warningOnRetry() && run.ownAttempts() > 1) {
            ended = State.WARNING;
        }
        if (ended == State.FAILED && options.allowFailure()) {
            ended = State.WARNING;
        }
        if (ended == State.WARNING && options.allowWarning()) {
            ended = State.SUCCESS;
        }
        complete(run, ended, outputs, error);
    }

    /** The run ends for good; its parent looks again at what to do. */
    void complete(TaskRun run, State state, Map<String, Object> outputs, String error) {
        step.emit(new TaskRunCompleted(run.id(), state, outputs, error, now));
        touch(run.parentTaskRunId());
    }

    /** A retried flowable: every run inside it starts again, as it decides. */
    void restart(TaskRun run, Flowable flowable) {
        for (TaskRun descendant : runs().descendants(run.id())) {
            step.emit(new TaskRunReset(descendant.id(), now));
        }
        startAttempt(runs().get(run.id()), flowable);
    }

    /**
     * A retried flowable resets every run inside it; those its new attempt did not reach (a branch not taken this time,
     * errors that were not needed) end SKIPPED with it, so that no run stays CREATED.
     */
    private void skipReset(TaskRun flowableRun) {
        for (TaskRun descendant : runs().descendants(flowableRun.id())) {
            if (descendant.state() == State.CREATED) {
                step.emit(new TaskRunCompleted(descendant.id(), State.SKIPPED, Map.of(), null, now));
            }
        }
    }

    /** Ends every open run of the execution, e.g. when it is killed; their lease timers would only be ignored. */
    void endOpenRuns(State state, String error) {
        for (TaskRun run : step.execution().taskRuns()) {
            if (!run.state().isTerminal()) {
                step.emit(new TaskRunCompleted(run.id(), state, Map.of(), error, now));
            }
        }
    }

    /**
     * Ends the runs inside a flowable that are still open, KILLED, and looks at the flowable again (its main branch
     * failed); true when there was one to kill.
     */
    boolean killInside(TaskRun run, String reason) {
        boolean killed = false;
        for (TaskRun descendant : runs().descendants(run.id())) {
            if (!descendant.state().isTerminal() && descendant.state() != State.CREATED) { // a reset run may still run
                descendant.currentAttempt().filter(a -> a.leaseUntil() != null && !a.state().isTerminal()).ifPresent(a ->
                        step.effect(new Effect.CancelTimer(leaseTimer(step.executionId(), descendant.id(), a.number(), a.leaseUntil()))));
                step.emit(new TaskRunCompleted(descendant.id(), State.KILLED, Map.of(), reason, now));
                killed = true;
            }
        }
        if (killed) {
            touch(run.id());
        }
        return killed;
    }

    private void endExecution(Walk.Done done) {
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

    /** Ends the execution, and keeps it for the retention: then a timer purges it. */
    void endExecution(ExecutionCompleted completed) {
        step.emit(completed);
        step.effect(new Effect.ScheduleTimer(Timer.purge(step.executionId(), completed.at().plus(settings.retention()))));
    }

    private Map<String, Object> renderOutputs() throws ExpressionException {
        if (flow.outputs().isEmpty()) {
            return null;
        }
        Map<String, Object> variables = Contexts.execution(step.execution(), step.state(), flow, flow.outputReferences()).build();
        var outputs = new LinkedHashMap<String, Object>();
        for (OutputDef output : flow.outputs()) {
            outputs.put(output.id(), expressions.renderDeep(output.value(), variables));
        }
        return outputs;
    }

    Map<String, Object> variables(TaskRun run, TaskDef task) {
        return Contexts.taskRun(step.execution(), step.state(), flow, run, task);
    }

    /**
     * When a run whose current attempt failed at {@code failedAt} starts its next one, by its retry policy, or null
     * when the policy allows no more. The same for the live decision and for {@link Decider#reemit}, whose retry timer
     * must take the key of the one it replaces (a random wait is drawn from the run's id).
     */
    static Instant nextAttemptAt(RetryPolicy retry, TaskRun run, Instant failedAt) {
        Instant firstStart = run.attempts().getFirst().histories().getFirst().date();
        return retry.nextAttemptAt(run.ownAttempts(), firstStart, failedAt, run.id().hashCode());
    }

    static Timer leaseTimer(String executionId, String taskRunId, int attempt, Instant until) {
        return new Timer(executionId, Timer.Kind.LEASE, taskRunId, attempt, until);
    }

    /** A flowable attempt's time limit, from when the attempt started. */
    Timer timeoutTimer(TaskRun run, TaskDef task) {
        Attempt attempt = run.currentAttempt().orElseThrow();
        return new Timer(step.executionId(), Timer.Kind.TIMEOUT, run.id(), attempt.number(),
                attempt.histories().getFirst().date().plus(task.options().timeout()));
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
                        : variables(runs().get(run.id()), task);
                return expressions.renderDeep(value, variables);
            } catch (ExpressionException e) {
                throw Failure.of(e);
            }
        }
    }
}
