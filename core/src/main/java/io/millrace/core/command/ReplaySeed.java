package io.millrace.core.command;

import io.millrace.core.execution.Execution;
import io.millrace.core.execution.Maps;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a replay from a chosen task run keeps of the ended execution it replays: every run created before the chosen
 * one (in the order the runs were created) that ended, with its state, outputs and dates; but a flowable around the
 * chosen run, or around any run created after it, starts again (state {@link State#CREATED} here), keeping its
 * children that are kept. The chosen run and every run created after it are not kept: the new execution runs them
 * anew. Task run ids are the replayed execution's; the new execution names its runs itself.
 */
public record ReplaySeed(String fromExecutionId, String fromTaskRunId, List<SeedRun> runs) {
    public ReplaySeed {
        runs = List.copyOf(runs);
    }

    /** One run kept (ended) or started again (CREATED: a flowable around the chosen run), parents before children. */
    public record SeedRun(String taskRunId, String taskId, String parentTaskRunId, String value, Integer iteration,
            State state, Map<String, Object> outputs, String error, Instant createdAt, Instant endedAt) {
        public SeedRun {
            outputs = Maps.immutable(outputs);
        }
    }

    /**
     * The seed of a replay of {@code execution} from its run {@code taskRunId}.
     *
     * @param outputs the outputs of its runs, by task run id
     * @throws IllegalArgumentException when the execution has no such run
     */
    public static ReplaySeed of(Execution execution, String taskRunId, Map<String, Map<String, Object>> outputs) {
        List<TaskRun> all = execution.taskRuns();
        var byId = new HashMap<String, TaskRun>();
        int chosenAt = -1;
        for (int i = 0; i < all.size(); i++) {
            byId.put(all.get(i).id(), all.get(i));
            if (chosenAt < 0 && all.get(i).id().equals(taskRunId)) {
                chosenAt = i;
            }
        }
        if (chosenAt < 0) {
            throw new IllegalArgumentException("Execution '" + execution.id() + "' has no task run '" + taskRunId + "'");
        }
        // the flowables around the chosen run, and around any run after it: they start again
        Set<String> again = new HashSet<>();
        for (TaskRun run : all.subList(chosenAt, all.size())) {
            for (TaskRun parent = byId.get(run.parentTaskRunId()); parent != null && again.add(parent.id()); ) {
                parent = byId.get(parent.parentTaskRunId());
            }
        }
        var kept = new HashSet<String>();
        var runs = new ArrayList<SeedRun>();
        for (TaskRun run : all.subList(0, chosenAt)) {
            if (run.parentTaskRunId() != null && !kept.contains(run.parentTaskRunId())) {
                continue;
            }
            Instant createdAt = run.histories().getFirst().date();
            if (again.contains(run.id())) {
                kept.add(run.id());
                runs.add(new SeedRun(run.id(), run.taskId(), run.parentTaskRunId(), run.value(), run.iteration(),
                        State.CREATED, Map.of(), null, createdAt, null));
            } else if (run.state().isTerminal()) {
                kept.add(run.id());
                runs.add(new SeedRun(run.id(), run.taskId(), run.parentTaskRunId(), run.value(), run.iteration(),
                        run.state(), outputs.getOrDefault(run.id(), Map.of()), run.error(), createdAt,
                        run.histories().getLast().date()));
            }
        }
        return new ReplaySeed(execution.id(), taskRunId, runs);
    }
}
