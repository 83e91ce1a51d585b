package io.millrace.core.decide;

import io.millrace.core.command.RestartExecution;
import io.millrace.core.event.ExecutionRestarted;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunReset;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Flowable;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Restarts a FAILED or KILLED execution from its failed runs: RESTARTED, then RUNNING; each failed task starts again
 * with a new attempt (its run goes back to CREATED, keeping its attempts) and each flowable around one (or failed
 * itself) walks again with a new attempt, keeping what succeeded. The {@code errors} and {@code finally} branches of
 * those flowables and of the flow go back to CREATED, to run again only if the new attempts need them; those not
 * reached end SKIPPED. For a flow with a concurrency limit, it waits RESTARTED for a place first.
 */
final class RestartHandler implements CommandHandler<RestartExecution> {
    @Override
    public Decision decide(RestartExecution command, DecisionContext context) {
        Optional<Decision> missing = context.unlessExists();
        if (missing.isPresent()) {
            return missing.get();
        }
        Execution execution = context.execution().orElseThrow();
        if (execution.state() != State.FAILED && execution.state() != State.KILLED) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected a FAILED or KILLED execution to restart, but "
                    + execution.id() + " is " + execution.state());
        }
        Instant lastRestart = execution.lastRestart();
        if (lastRestart != null && !lastRestart.isBefore(command.requestedAt())) {
            return Decision.rejected(Rejection.Kind.STALE, "Execution " + execution.id() + " was restarted at "
                    + lastRestart + ", after this restart was requested (" + command.requestedAt() + ")");
        }
        if (execution.taskRuns().stream().noneMatch(run -> run.state().isFailure())) {
            return Decision.rejected(Rejection.Kind.INVALID, "Expected a failed task run to restart " + execution.id()
                    + " from, but it has none (it failed before any task, or its flow outputs failed): start it again");
        }
        Flow flow = context.flow();
        if (flow == null) {
            return Decision.rejected(Rejection.Kind.INVALID, "Expected the flow " + Flow.key(execution.namespace(),
                    execution.flowId()) + " revision " + execution.flowRevision() + " to exist to restart "
                    + execution.id() + ", but it was not found");
        }
        Advance advance = context.advance(flow);
        Instant endedAt = execution.histories().getLast().date();
        advance.step().effect(new Effect.CancelTimer(Timers.purge(execution, endedAt, context.settings())));
        advance.step().emit(new ExecutionRestarted(context.now()));
        if (Places.limited(flow)) {
            advance.step().effect(Places.ask(flow, execution.id(), context.now()));
            return advance.step().decision(); // RESTARTED until its flow's slots answer
        }
        advance.step().emit(new ExecutionStateChanged(State.RUNNING, context.now()));
        reopen(advance, flow);
        advance.touch(null);
        advance.run();
        return advance.step().decision();
    }

    /** Sets the failed runs and the flowables around them to run again; the caller touches the root and walks. */
    static void reopen(Advance advance, Flow flow) {
        Set<String> branchTasks = branchTasks(flow);
        // failed runs of main branches, and the flowables around them, outermost first
        var failed = new LinkedHashMap<String, TaskRun>();
        for (TaskRun run : advance.runs().failed()) {
            if (!inBranch(advance, run, branchTasks)) {
                advance.runs().ancestors(run).reversed().forEach(a -> failed.putIfAbsent(a.id(), a));
                failed.putIfAbsent(run.id(), run);
            }
        }
        Map<String, Flowable> reopened = new LinkedHashMap<>();
        failed.values().forEach(run -> {
            if (flow.task(run.taskId()).orElse(null) instanceof Flowable flowable) {
                reopened.put(run.id(), flowable);
            }
        });
        var reset = new HashSet<String>();
        for (TaskRun run : advance.runs().list()) {
            boolean branchToRunAgain = branchTasks.contains(run.taskId())
                    && (run.parentTaskRunId() == null || reopened.containsKey(run.parentTaskRunId()));
            boolean failedTask = failed.containsKey(run.id()) && !reopened.containsKey(run.id());
            if (branchToRunAgain || failedTask) {
                Stream.concat(Stream.of(run), advance.runs().descendants(run.id()).stream())
                        .filter(r -> r.state() != State.CREATED && reset.add(r.id()))
                        .forEach(r -> advance.step().emit(new TaskRunReset(r.id(), advance.now())));
                advance.touch(run.parentTaskRunId());
            }
        }
        reopened.forEach((id, flowable) -> advance.life().startAttempt(advance.runs().get(id), flowable));
    }

    /** The tasks of every errors and finally branch of the flow, its own included. */
    private static Set<String> branchTasks(Flow flow) {
        var ids = new HashSet<String>();
        Stream.concat(flow.errors().stream(), flow.finallyTasks().stream()).forEach(t -> ids.add(t.id()));
        flow.allTasks().forEach(task -> {
            if (task instanceof Flowable flowable) {
                Stream.concat(flowable.errors().stream(), flowable.finallyTasks().stream()).forEach(t -> ids.add(t.id()));
            }
        });
        return ids;
    }

    private static boolean inBranch(Advance advance, TaskRun run, Set<String> branchTasks) {
        return branchTasks.contains(run.taskId())
                || advance.runs().ancestors(run).stream().anyMatch(a -> branchTasks.contains(a.taskId()));
    }
}
