package io.millrace.core.decide;

import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An execution's task runs, indexed for one decision: by id, the children of a run (in creation order), and the run
 * of task t under parent p at iteration i. Built from one state of the execution; a decision builds a new one after
 * its events change the state.
 */
final class RunIndex {
    /** The parent id of the flow's own tasks, whose runs have no parent. */
    static final String ROOT = "";

    private final Map<String, TaskRun> byId;
    private final Map<String, List<TaskRun>> children = new HashMap<>();
    private final Map<String, TaskRun> byPlace = new HashMap<>();

    RunIndex(Execution execution) {
        byId = new HashMap<>(execution.taskRuns().size() * 2);
        for (TaskRun run : execution.taskRuns()) {
            byId.put(run.id(), run);
            String parent = parentKey(run.parentTaskRunId());
            children.computeIfAbsent(parent, p -> new ArrayList<>()).add(run);
            byPlace.put(place(parent, run.taskId(), run.iteration()), run);
        }
    }

    TaskRun run(String taskRunId) {
        return byId.get(taskRunId);
    }

    /** The runs directly inside {@code parentTaskRunId} ({@link #ROOT} or null: the flow's own), oldest first. */
    List<TaskRun> children(String parentTaskRunId) {
        return children.getOrDefault(parentKey(parentTaskRunId), List.of());
    }

    /** The run of a task under a parent at an iteration (null outside loops), or null when there is none yet. */
    TaskRun find(String parentTaskRunId, String taskId, Integer iteration) {
        return byPlace.get(place(parentKey(parentTaskRunId), taskId, iteration));
    }

    /** The runs enclosing this one, nearest first. */
    List<TaskRun> ancestors(TaskRun run) {
        var ancestors = new ArrayList<TaskRun>();
        for (TaskRun parent = byId.get(nullToEmpty(run.parentTaskRunId())); parent != null;
             parent = byId.get(nullToEmpty(parent.parentTaskRunId()))) {
            ancestors.add(parent);
        }
        return ancestors;
    }

    /** Every run inside this one, at any depth. */
    List<TaskRun> descendants(String taskRunId) {
        var all = new ArrayList<TaskRun>();
        var pending = new ArrayList<>(children(taskRunId));
        while (!pending.isEmpty()) {
            TaskRun next = pending.removeLast();
            all.add(next);
            pending.addAll(children(next.id()));
        }
        return all;
    }

    private static String parentKey(String parentTaskRunId) {
        return parentTaskRunId == null ? ROOT : parentTaskRunId;
    }

    private static String nullToEmpty(String id) {
        return id == null ? ROOT : id;
    }

    private static String place(String parent, String taskId, Integer iteration) {
        return parent + '\u0000' + taskId + '\u0000' + iteration;
    }
}
