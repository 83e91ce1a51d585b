package io.millrace.core.decide;

import io.millrace.core.cache.LruCache;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.TaskDef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One look at a flowable: its main branch by its behaviour's plan, then its errors when the main branch failed, then
 * its finally tasks; starts what may start ({@link RunLife#start}) and says whether the flowable is busy or done, and
 * how. The same for every flowable type: only the plan and the outcome are the behaviour's.
 */
final class PlanWalk {
    /** Where a flowable stands: it started children, waits for running ones, or is done. */
    sealed interface Outcome {
        record Busy() implements Outcome {
        }

        record Done(State state, String error) implements Outcome {
        }
    }

    private static final Outcome BUSY = new Outcome.Busy();

    private final Advance advance;
    private final DeciderSettings settings;
    private final Behaviours behaviours;
    /** Flowable attempts' plans, kept across decisions by the decider. */
    private final LruCache<String, Lanes> plans;

    PlanWalk(Advance advance, DeciderSettings settings, Behaviours behaviours, LruCache<String, Lanes> plans) {
        this.advance = advance;
        this.settings = settings;
        this.behaviours = behaviours;
        this.plans = plans;
    }

    /** Walks the flowable whose run is {@code parentId} (null: the flow's root), in {@code scope}. */
    Outcome walk(Flowable flowable, String parentId, Scope scope) {
        TaskRuns runs = advance.runs();
        Set<String> mainIds = ids(flowable.mainTasks());
        TaskRun failedMain = runs.failedChildren(parentId).stream()
                .filter(run -> mainIds.contains(run.taskId())).findFirst().orElse(null);
        boolean mainRunning = runs.openChildren(parentId).stream().anyMatch(run -> mainIds.contains(run.taskId()));
        if (failedMain == null) {
            Lanes lanes;
            try {
                lanes = lanes(flowable, scope);
            } catch (Scope.Failure e) {
                return mainRunning ? BUSY : new Outcome.Done(State.FAILED, e.getMessage());
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

    private Lanes lanes(Flowable flowable, Scope scope) throws Scope.Failure {
        TaskRun run = scope.run();
        if (run == null) {
            return new Lanes(behaviours.of(flowable).plan(flowable, scope));
        }
        String key = advance.step().executionId() + '/' + run.id() + '/' + run.attempts().size();
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
            advance.life().start(child, parentId);
        }
        return false;
    }

    /** Where one lane stands: done (every child ended, or one failed), and else its next child to start, if any. */
    private record LaneState(boolean done, boolean started, Plan.Child next) {
    }

    private LaneState laneState(Plan.Lane lane, String parentId) {
        boolean started = false;
        for (Plan.Child child : lane.children()) {
            TaskRun run = advance.runs().find(parentId, child.task().id(), child.iteration());
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

    private Outcome.Done outcome(Flowable flowable, String parentId, TaskRun failedMain) {
        if (failedMain != null) {
            return new Outcome.Done(State.FAILED, describe(failedMain));
        }
        Set<String> finallyIds = ids(flowable.finallyTasks());
        for (TaskRun child : advance.runs().failedChildren(parentId)) {
            if (finallyIds.contains(child.taskId())) {
                return new Outcome.Done(State.FAILED, describe(child));
            }
        }
        return new Outcome.Done(advance.runs().anyChildWarning(parentId) ? State.WARNING : State.SUCCESS, null);
    }

    private static Set<String> ids(List<TaskDef> tasks) {
        var ids = new HashSet<String>(tasks.size() * 2);
        tasks.forEach(t -> ids.add(t.id()));
        return ids;
    }

    private static String describe(TaskRun run) {
        return "Task '" + run.taskId() + "' ended " + run.state() + (run.error() == null ? "" : ": " + run.error());
    }
}
