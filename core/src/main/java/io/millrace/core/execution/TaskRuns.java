package io.millrace.core.execution;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The task runs of one execution, in creation order, indexed so that every question a decision asks costs the same
 * whatever the size of the execution: a run by id, the run of task t under parent p at iteration i, the runs of a
 * task, and for each parent the children that are open (started, not ended) or failed, and how many ended WARNING.
 * Mutable: appliers add and change runs in place, so applying an event never copies every run. An {@link Execution}
 * shares its container with the executions derived from it.
 */
public final class TaskRuns {
    /** The parent key of the flow's own tasks, whose runs have no parent. */
    public static final String ROOT = "";

    private final ArrayList<TaskRun> runs = new ArrayList<>();
    private final List<TaskRun> view = Collections.unmodifiableList(runs);
    private final Map<String, Integer> positions = new HashMap<>();
    private final Map<String, String> places = new HashMap<>();
    private final Map<String, List<String>> byTask = new HashMap<>();
    private final Map<String, List<String>> children = new HashMap<>();
    private final Map<String, Set<String>> open = new HashMap<>();
    private final Map<String, Set<String>> failed = new HashMap<>();
    private final Map<String, Integer> warnings = new HashMap<>();
    private final Set<String> allFailed = new LinkedHashSet<>();
    /** Runs added or changed since the last {@link #clearChanged()}: what a store writes and a snapshot sends. */
    private final Set<String> changed = new LinkedHashSet<>();
    /** The runs changed since the last {@link #clearChanged()} as they were then (runs added since are not here). */
    private final Map<String, TaskRun> beforeChanges = new HashMap<>();
    private int added;

    public TaskRuns() {
    }

    /** Runs as they were stored: none of them counts as changed. */
    public static TaskRuns of(List<TaskRun> list) {
        var runs = new TaskRuns();
        list.forEach(runs::add);
        runs.clearChanged();
        return runs;
    }

    /** The run's creation index: its position in {@link #list()}. */
    public int position(String taskRunId) {
        Integer position = positions.get(taskRunId);
        if (position == null) {
            throw new IllegalStateException("Expected task run " + taskRunId + " to exist, but it does not");
        }
        return position;
    }

    /** The runs added or changed since the last {@link #clearChanged()}, oldest change first. */
    public List<TaskRun> changed() {
        return resolve(changed);
    }

    /** How many runs there were at the last {@link #clearChanged()}. */
    public int sizeBeforeChanges() {
        return runs.size() - added;
    }

    /** The run as it was at the last {@link #clearChanged()}, or null when it was added since. */
    public TaskRun beforeChanges(String taskRunId) {
        TaskRun before = beforeChanges.get(taskRunId);
        if (before != null) {
            return before;
        }
        int position = position(taskRunId);
        return position >= sizeBeforeChanges() ? null : runs.get(position);
    }

    /** Counts the run as changed, so that it is written and sent again as it is. */
    public void markChanged(String taskRunId) {
        position(taskRunId);
        changed.add(taskRunId);
    }

    public void clearChanged() {
        changed.clear();
        beforeChanges.clear();
        added = 0;
    }

    /** A copy that later changes to this one do not reach. */
    public TaskRuns copy() {
        return of(runs);
    }

    /** Every run, oldest first; a read-only view that follows changes. */
    public List<TaskRun> list() {
        return view;
    }

    public int size() {
        return runs.size();
    }

    public TaskRun get(String taskRunId) {
        Integer position = positions.get(taskRunId);
        return position == null ? null : runs.get(position);
    }

    /** The run of a task under a parent (null: the flow's own) at an iteration (null outside loops), or null. */
    public TaskRun find(String parentTaskRunId, String taskId, Integer iteration) {
        String id = places.get(place(key(parentTaskRunId), taskId, iteration));
        return id == null ? null : get(id);
    }

    /** The runs of one task, at any depth, oldest first. */
    public List<TaskRun> ofTask(String taskId) {
        return resolve(byTask.getOrDefault(taskId, List.of()));
    }

    /** The runs directly inside a parent (null: the flow's own), oldest first. */
    public List<TaskRun> children(String parentTaskRunId) {
        return resolve(children.getOrDefault(key(parentTaskRunId), List.of()));
    }

    /** The children of a parent that started and have not ended yet. */
    public List<TaskRun> openChildren(String parentTaskRunId) {
        return resolve(open.getOrDefault(key(parentTaskRunId), Set.of()));
    }

    /** The children of a parent that ended FAILED or KILLED, in the order they ended. */
    public List<TaskRun> failedChildren(String parentTaskRunId) {
        return resolve(failed.getOrDefault(key(parentTaskRunId), Set.of()));
    }

    /** Every run of the execution that ended FAILED or KILLED, in the order they ended. */
    public List<TaskRun> failed() {
        return resolve(allFailed);
    }

    public boolean anyChildWarning(String parentTaskRunId) {
        return warnings.getOrDefault(key(parentTaskRunId), 0) > 0;
    }

    /** The runs enclosing this one, nearest first. */
    public List<TaskRun> ancestors(TaskRun run) {
        var ancestors = new ArrayList<TaskRun>();
        for (TaskRun parent = get(run.parentTaskRunId()); parent != null; parent = get(parent.parentTaskRunId())) {
            ancestors.add(parent);
        }
        return ancestors;
    }

    /** Every run inside this one, at any depth. */
    public List<TaskRun> descendants(String taskRunId) {
        var all = new ArrayList<TaskRun>();
        var pending = new ArrayList<>(children(taskRunId));
        while (!pending.isEmpty()) {
            TaskRun next = pending.removeLast();
            all.add(next);
            pending.addAll(children(next.id()));
        }
        return all;
    }

    /** Adds a new run; for appliers only. */
    public void add(TaskRun run) {
        if (positions.containsKey(run.id())) {
            throw new IllegalStateException("Expected a new task run, but " + run.id() + " exists already");
        }
        positions.put(run.id(), runs.size());
        runs.add(run);
        String parent = key(run.parentTaskRunId());
        places.put(place(parent, run.taskId(), run.iteration()), run.id());
        byTask.computeIfAbsent(run.taskId(), t -> new ArrayList<>()).add(run.id());
        children.computeIfAbsent(parent, p -> new ArrayList<>()).add(run.id());
        changed.add(run.id());
        added++;
        count(parent, null, run);
    }

    /** Changes a run in place; for appliers only. */
    public void update(String taskRunId, UnaryOperator<TaskRun> change) {
        Integer position = positions.get(taskRunId);
        if (position == null) {
            throw new IllegalStateException("Expected task run " + taskRunId + " to exist, but it does not");
        }
        TaskRun before = runs.get(position);
        TaskRun after = change.apply(before);
        runs.set(position, after);
        if (position < sizeBeforeChanges()) {
            beforeChanges.putIfAbsent(taskRunId, before);
        }
        changed.add(taskRunId);
        count(key(after.parentTaskRunId()), before, after);
    }

    private void count(String parent, TaskRun before, TaskRun after) {
        State was = before == null ? null : before.state();
        State is = after.state();
        if (was == is) {
            return;
        }
        if (was != null && isOpen(was)) {
            open.get(parent).remove(after.id());
        }
        if (isOpen(is)) {
            open.computeIfAbsent(parent, p -> new LinkedHashSet<>()).add(after.id());
        }
        if (was != null && was.isFailure()) {
            failed.get(parent).remove(after.id());
            allFailed.remove(after.id());
        }
        if (is.isFailure()) {
            failed.computeIfAbsent(parent, p -> new LinkedHashSet<>()).add(after.id());
            allFailed.add(after.id());
        }
        if (was == State.WARNING) {
            warnings.merge(parent, -1, Integer::sum);
        }
        if (is == State.WARNING) {
            warnings.merge(parent, 1, Integer::sum);
        }
    }

    private static boolean isOpen(State state) {
        return state != State.CREATED && !state.isTerminal();
    }

    private List<TaskRun> resolve(java.util.Collection<String> ids) {
        var resolved = new ArrayList<TaskRun>(ids.size());
        ids.forEach(id -> resolved.add(get(id)));
        return resolved;
    }

    private static String key(String parentTaskRunId) {
        return parentTaskRunId == null ? ROOT : parentTaskRunId;
    }

    private static String place(String parent, String taskId, Integer iteration) {
        return parent + '\u0000' + taskId + '\u0000' + iteration;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TaskRuns that && runs.equals(that.runs);
    }

    @Override
    public int hashCode() {
        return runs.hashCode();
    }

    @Override
    public String toString() {
        return runs.toString();
    }
}
