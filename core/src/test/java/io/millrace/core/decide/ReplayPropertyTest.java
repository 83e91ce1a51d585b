package io.millrace.core.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.PauseExecution;
import io.millrace.core.command.ResumeExecution;
import io.millrace.core.command.RestartExecution;
import io.millrace.core.command.SlotAnswer;
import io.millrace.core.command.SlotCommand;
import io.millrace.core.command.SubflowEnded;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.event.ExecutionRestarted;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.event.TaskRunReset;
import io.millrace.core.event.TaskRunRetrying;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.ForEach;
import io.millrace.core.flow.InputDef;
import io.millrace.core.flow.InputType;
import io.millrace.core.flow.OutputDef;
import io.millrace.core.flow.RetryPolicy;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.TaskOptions;
import io.millrace.core.flow.TaskTypes;
import io.millrace.core.flow.WorkerTask;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Randomized property test of the decider: random flows, half of them linear lists of worker tasks, half nested trees
 * of every flowable with random options (see {@link RandomTaskTrees}), driven by random (and hostile) command
 * sequences on a fake clock, then, in most cases, drained: open attempts answered and the timers the decisions left
 * scheduled fired when due, as the executor's timer store would, until the executions end. Checked at every step or at
 * the end: (a) folding the events rebuilds the state and outputs; (b) one ExecutionCompleted (since the last
 * restart), the last event; (c) nothing but the purge or a restart after the end, and no purge before the last end;
 * (d) attempts numbered 1..n; each command's outcome as its kind and the task's options say; and, for trees, (1) every drained execution ends, (2) an ended execution leaves no task run open, (3) a
 * run sits under a run of the flowable its task is declared in, (4) no two runs share parent, task and iteration, (6)
 * a flowable's timeout leaves its errors and finally to run.
 * Deterministic: each case has its own seed, printed on failure with the flow, the runs and the last commands. Rerun
 * one case with {@code -Dmillrace.replay.seed=<seed> -Dmillrace.replay.cases=1}.
 */
class ReplayPropertyTest {
    private static final long BASE_SEED = Long.getLong("millrace.replay.seed", 0x5EED_2025L);
    private static final int CASES = Integer.getInteger("millrace.replay.cases", 1_000);
    private static final Expressions EXPRESSIONS = new Expressions();
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    /** Commands per execution the drain may take: far more than the largest generated tree needs. */
    private static final int DRAIN_ROUNDS = 3_000;

    @Test
    void shouldKeepReplayAndLifecycleInvariantsForRandomCommandSequences() {
        var stats = new int[State.values().length];
        var seen = new TreeMap<String, Integer>();
        for (int i = 0; i < CASES; i++) {
            long seed = BASE_SEED + i;
            var scenario = new Scenario(seed);
            try {
                scenario.run();
            } catch (Throwable failure) {
                throw new AssertionError("Replay property failed for seed " + seed
                        + " (rerun with -Dmillrace.replay.seed=" + seed + " -Dmillrace.replay.cases=1)\n"
                        + scenario.describe(), failure);
            }
            scenario.finalStates().forEach(s -> stats[s.ordinal()]++);
            scenario.seen().forEach(name -> seen.merge(name, 1, Integer::sum));
        }
        assertThat(seen).as("what the generated sequences exercised").containsKeys(
                "TaskRunLeaseExtended", "TaskRunAttemptEnded", "TaskRunCompleted", "STALE", "DUPLICATE", "INVALID",
                "TaskRunRetrying", "TaskRunReset", "fired RETRY", "fired TIMEOUT", "SKIPPED", "drained nested",
                "ExecutionRestarted");
        assertThat(seen.get("attempt>1")).as("cases with a re-dispatched attempt").isGreaterThan(CASES / 20);
        // the generator must reach the interesting endings, or the properties are checked on too little
        assertThat(stats[State.SUCCESS.ordinal()]).as("executions ending SUCCESS").isPositive();
        assertThat(stats[State.FAILED.ordinal()]).as("executions ending FAILED").isPositive();
        assertThat(stats[State.WARNING.ordinal()]).as("executions ending WARNING").isPositive();
        assertThat(stats[State.KILLED.ordinal()]).as("executions ending KILLED").isPositive();
        for (State ending : List.of(State.SUCCESS, State.FAILED, State.WARNING, State.KILLED)) {
            assertThat(seen).as("nested executions ending %s", ending).containsKey("nested " + ending);
        }
    }

    /** Fails with the message unless the property holds; cheaper than an AssertJ chain for checks made every step. */
    private static void check(boolean holds, Supplier<String> message) {
        if (!holds) {
            throw new AssertionError(message.get());
        }
    }

    /** One random flow, one or two executions of it, and a random sequence of commands. */
    private static final class Scenario {
        private final long seed;
        private final Random random;
        private final boolean nested;
        private final Flow flow;
        /** How often a worker of a nested flow fails: some cases run their trees through, others fail a lot. */
        private final int failurePercent;
        private final DeciderSettings settings;
        private final Decider decider;
        private final List<Run> executions = new ArrayList<>();
        private final List<String> trace = new ArrayList<>();
        /** Task ids by task run id, for the trace. */
        private final Map<String, String> taskOfRun = new HashMap<>();
        private boolean drained;
        private Instant now = T0;
        private List<State> finalStates = List.of();

        Scenario(long seed) {
            this.seed = seed;
            // consecutive seeds give java.util.Random correlated first draws: spread them first
            this.random = new Random(new SplittableRandom(seed).nextLong());
            this.nested = random.nextBoolean();
            this.flow = nested ? nestedFlow() : linearFlow();
            this.failurePercent = random.nextInt(35);
            this.settings = new DeciderSettings(Duration.ofSeconds(5 + random.nextInt(56)), 1 + random.nextInt(4),
                    Duration.ofMinutes(1 + random.nextInt(60)));
            this.decider = new Decider(settings, EXPRESSIONS);
            int count = 1 + random.nextInt(2);
            for (int i = 0; i < count; i++) {
                executions.add(new Run("exec-" + seed + "-" + i));
            }
        }

        void run() {
            int steps = 5 + random.nextInt(60);
            for (int i = 0; i < steps; i++) {
                step(executions.get(random.nextInt(executions.size())));
            }
            // nested flows are drained more often: their retries, resets and timeouts mostly happen there
            if (random.nextInt(4) < (nested ? 3 : 2)) {
                drain();
            }
            for (Run run : executions) {
                run.checkReplay();
                run.checkDeterminism();
            }
            finalStates = executions.stream().flatMap(r -> r.state.execution().stream()).map(Execution::state).toList();
            for (Run run : executions) {
                run.purgeIfEnded();
            }
        }

        /** Names of the events, rejections and effective timers the case produced, and how its executions ended. */
        Set<String> seen() {
            var names = new HashSet<String>();
            for (Run run : executions) {
                for (int i = 0; i < run.decisions.size(); i++) {
                    Decision decision = run.decisions.get(i);
                    decision.events().forEach(e -> names.add(e.getClass().getSimpleName()));
                    decision.rejection().ifPresent(r -> names.add(r.kind().name()));
                    if (run.commands.get(i) instanceof TimerFired fired && !decision.events().isEmpty()) {
                        names.add("fired " + fired.timer().kind());
                    }
                }
                if (run.log.stream().anyMatch(e -> e instanceof TaskRunCompleted c && c.state() == State.SKIPPED)) {
                    names.add("SKIPPED");
                }
                if (run.dispatched.stream().anyMatch(d -> d.attempt() > 1)) {
                    names.add("attempt>1");
                }
            }
            if (nested) {
                finalStates.forEach(state -> names.add("nested " + state));
                if (drained) {
                    names.add("drained nested");
                }
            }
            return names;
        }

        /** The executions' states at the end of the case, before their purge. */
        List<State> finalStates() {
            return finalStates;
        }

        String describe() {
            var text = new StringBuilder();
            text.append(nested ? "nested flow, failures " + failurePercent + "%" : "linear flow").append(", settings: ").append(settings).append('\n');
            text.append("flow: tasks=").append(RandomTaskTrees.summary(flow.tasks()))
                    .append("\n  errors=").append(RandomTaskTrees.summary(flow.errors()))
                    .append("\n  finally=").append(RandomTaskTrees.summary(flow.finallyTasks()))
                    .append("\n  inputs=").append(flow.inputs()).append(" outputs=").append(flow.outputs()).append('\n');
            for (Run run : executions) {
                run.describe(text);
            }
            int from = Math.max(0, trace.size() - 60);
            text.append("last ").append(trace.size() - from).append(" of ").append(trace.size()).append(" commands:\n");
            trace.subList(from, trace.size()).forEach(line -> text.append("  ").append(line).append('\n'));
            return text.toString();
        }

        /** A task run as the trace shows it: its task, and the start of its id to tell iterations apart. */
        private String runLabel(String taskRunId) {
            return taskOfRun.getOrDefault(taskRunId, "?") + "@" + taskRunId.substring(0, Math.min(4, taskRunId.length()));
        }

        private String label(Command command) {
            return switch (command) {
                case TaskResult r -> "TaskResult " + runLabel(r.taskRunId()) + "#" + r.attempt() + " " + r.state();
                case TimerFired f -> "TimerFired " + f.timer().kind()
                        + (f.timer().taskRunId().isEmpty() ? "" : " " + runLabel(f.timer().taskRunId()) + "#" + f.timer().attempt())
                        + " due " + f.timer().dueAt();
                case CreateExecution c -> "CreateExecution inputs=" + c.inputs();
                case KillExecution k -> "KillExecution";
                case PauseExecution p -> "PauseExecution";
                case ResumeExecution r -> "ResumeExecution " + (r.taskRunId() == null ? "" : runLabel(r.taskRunId()));
                case SubflowEnded e -> "SubflowEnded " + runLabel(e.taskRunId());
                case RestartExecution r -> "RestartExecution";
                case SlotAnswer a -> "SlotAnswer " + a.answer();
                case SlotCommand s -> s.getClass().getSimpleName(); // the generated flows have no concurrency limit
            };
        }

        private String label(Event event) {
            String name = event.getClass().getSimpleName();
            return switch (event) {
                case TaskRunCreated e -> name + "(" + e.taskId() + (e.iteration() == null ? "" : "[" + e.iteration() + "]") + ")";
                case TaskRunAttemptStarted e -> name + "(" + runLabel(e.taskRunId()) + "#" + e.attempt() + ")";
                case TaskRunCompleted e -> name + "(" + runLabel(e.taskRunId()) + " " + e.state() + ")";
                case TaskRunRetrying e -> name + "(" + runLabel(e.taskRunId()) + "#" + e.attempt() + ")";
                case TaskRunReset e -> name + "(" + runLabel(e.taskRunId()) + ")";
                case TaskRunAttemptEnded e -> name + "(" + runLabel(e.taskRunId()) + "#" + e.attempt() + ")";
                case ExecutionCompleted e -> name + "(" + e.state() + ")";
                default -> name;
            };
        }

        // --- generation -----------------------------------------------------------------------

        private Flow linearFlow() {
            int mainCount = 1 + random.nextInt(6);
            List<TaskDef> tasks = IntStream.rangeClosed(1, mainCount).mapToObj(i -> task("t" + i, 0.2)).toList();
            List<TaskDef> errors = IntStream.rangeClosed(1, random.nextInt(3)).mapToObj(i -> task("e" + i, 0.2)).toList();
            List<TaskDef> finallyTasks = IntStream.rangeClosed(1, random.nextInt(3)).mapToObj(i -> task("f" + i, 0.2)).toList();
            return flow(tasks, errors, finallyTasks, IntStream.rangeClosed(1, mainCount).mapToObj(i -> "t" + i).toList());
        }

        /** A random tree: every flowable, nested up to four levels, with random options; at most about 30 tasks. */
        private Flow nestedFlow() {
            var trees = new RandomTaskTrees(random, 6 + random.nextInt(25));
            List<TaskDef> tasks = trees.tasks(1, 4, 1, false);
            List<TaskDef> errors = random.nextInt(3) == 0 ? trees.tasks(1, 2, 2, false) : List.of();
            List<TaskDef> finallyTasks = random.nextInt(3) == 0 ? trees.tasks(1, 2, 2, false) : List.of();
            var workers = new ArrayList<String>();
            var pending = new ArrayList<>(tasks);
            while (!pending.isEmpty()) {
                TaskDef next = pending.removeLast();
                if (next instanceof WorkerTask) {
                    workers.add(next.id());
                }
                pending.addAll(next.children());
            }
            return flow(tasks, errors, finallyTasks, workers.isEmpty() ? List.of("none") : workers);
        }

        /** A flow of these tasks, whose outputs (if any) read the outputs of one of {@code readable}. */
        private Flow flow(List<TaskDef> tasks, List<TaskDef> errors, List<TaskDef> finallyTasks, List<String> readable) {
            var outputs = new ArrayList<OutputDef>();
            if (random.nextBoolean()) {
                outputs.add(new OutputDef("first", "STRING", "{{ outputs." + readable.getFirst() + ".value ?? 'none' }}"));
            }
            if (random.nextInt(4) == 0) {
                // strict: fails the execution when the task has no 'value' output
                outputs.add(new OutputDef("strict", "STRING",
                        "{{ outputs." + readable.get(random.nextInt(readable.size())) + ".value }}"));
            }
            var inputs = new ArrayList<InputDef>();
            if (random.nextInt(3) == 0) {
                inputs.add(new InputDef("count", InputType.INT, random.nextBoolean(), random.nextBoolean() ? 1 : null, null));
            }
            return new Flow("io.millrace.tests", "random", 1, Map.of("origin", "property"), inputs, tasks, errors,
                    finallyTasks, outputs, Map.of(), List.of(), false, "# generated");
        }

        private TaskDef task(String id, double disabledChance) {
            return new WorkerTask(id, TaskTypes.LOG, TaskOptions.DEFAULTS.withDisabled(random.nextDouble() < disabledChance),
                    Map.of("message", id));
        }

        /** Inputs to start with: a linear flow often gets wrong ones; a nested flow mostly valid ones, to run its tree. */
        private Map<String, Object> randomInputs() {
            if (nested && random.nextInt(10) > 0) {
                return flow.inputs().isEmpty() ? Map.of() : Map.of("count", random.nextInt(100));
            }
            return switch (random.nextInt(5)) {
                case 0 -> Map.of();
                case 1 -> Map.of("count", "not a number");
                case 2 -> Map.of("unknown", 1);
                default -> flow.inputs().isEmpty() ? Map.of() : Map.of("count", random.nextInt(100));
            };
        }

        private void step(Run run) {
            int roll = random.nextInt(100);
            if (run.state.execution().isEmpty() && roll < 60) {
                run.decide(new CreateExecution(run.id, flow.namespace(), flow.id(), null, randomInputs(), Map.of(), now));
            } else if (roll < 45) {
                run.resultForKnownAttempt();
            } else if (roll < 55) {
                run.resendPrevious();
            } else if (roll < 70) {
                run.fireTimer();
            } else if (roll < 82) {
                advanceClock();
            } else if (roll < 86) {
                run.decide(new CreateExecution(run.id, flow.namespace(), flow.id(), null, randomInputs(), Map.of(), now));
            } else if (roll < 89) {
                if (run.state.execution().filter(e -> e.state().isFailure()).isPresent() && random.nextBoolean()) {
                    run.decide(new RestartExecution(run.id, now)); // as a person would, once it failed
                } else if (!nested || random.nextInt(4) == 0) { // a kill cuts a tree short: rarer there
                    run.decide(new KillExecution(run.id, now));
                }
            } else if (roll < 94) {
                run.decide(new TaskResult(run.id, "no-such-run", 1, State.SUCCESS, Map.of(), null, "w", now));
            } else {
                run.resultForFutureAttempt();
            }
        }

        /**
         * As the workers and the executor's timer store would: answers open attempts and fires the timers the
         * decisions left scheduled, in due order, with now and then an expired lease or a stale timer, until every
         * execution ends. (1) each one must end within the bounded rounds: one that no answer and no timer can move
         * is stuck.
         */
        private void drain() {
            drained = true;
            for (int round = 0; round < DRAIN_ROUNDS; round++) {
                boolean any = false;
                for (Run run : executions) {
                    Execution execution = run.state.execution().orElse(null);
                    if (execution == null) {
                        run.decide(new CreateExecution(run.id, flow.namespace(), flow.id(), null, Map.of(), Map.of(), now));
                        any = true;
                        continue;
                    }
                    if (execution.state().isTerminal() || run.stuck) {
                        continue;
                    }
                    any = true;
                    if (execution.state() == State.PAUSED && random.nextInt(3) == 0) {
                        run.decide(new ResumeExecution(run.id, null, Map.of(), now)); // as a person would, in time
                    } else if (random.nextInt(5) == 0) {
                        advanceClock();
                        run.fireTimer();
                    } else if (!run.answerOpenAttempt()) {
                        if (execution.state() == State.PAUSED && run.pending.isEmpty()) {
                            run.decide(new ResumeExecution(run.id, null, Map.of(), now)); // nothing else moves it
                        } else {
                            run.fireNextDueTimer();
                        }
                    }
                }
                if (!any) {
                    break;
                }
            }
            for (Run run : executions) {
                Execution execution = run.state.execution().orElseThrow();
                check(execution.state().isTerminal(), () -> "(1) execution " + run.id + " is still " + execution.state()
                        + (run.stuck ? ", and no open attempt to answer nor timer to fire is left: it is stuck"
                        : " after " + DRAIN_ROUNDS + " rounds of the drain"));
            }
        }

        private void advanceClock() {
            long maxMillis = settings.lease().toMillis() * 2;
            now = now.plusMillis(random.nextLong(maxMillis + 1));
        }

        /** A worker's answer; in a nested flow, failures come as often as the case's rate says. */
        private State randomWorkerState() {
            int roll = random.nextInt(100);
            if (nested) {
                if (roll < failurePercent) {
                    return State.FAILED;
                }
                roll = random.nextInt(100);
                return roll < 60 ? State.SUCCESS : roll < 87 ? State.RUNNING : roll < 97 ? State.WARNING
                        : List.of(State.CREATED, State.SKIPPED, State.KILLED).get(random.nextInt(3));
            }
            if (roll < 45) {
                return State.SUCCESS;
            }
            if (roll < 70) {
                return State.RUNNING;
            }
            if (roll < 85) {
                return State.FAILED;
            }
            if (roll < 97) {
                return State.WARNING;
            }
            // not a worker's state: rejected as INVALID
            return List.of(State.CREATED, State.SKIPPED, State.KILLED).get(random.nextInt(3));
        }

        private Map<String, Object> randomOutputs() {
            return switch (random.nextInt(3)) {
                case 0 -> Map.of();
                case 1 -> Map.of("value", "v" + random.nextInt(1000));
                default -> {
                    var outputs = new LinkedHashMap<String, Object>();
                    outputs.put("value", random.nextInt(1000));
                    outputs.put("nested", Map.of("list", List.of(1, 2, 3)));
                    yield outputs;
                }
            };
        }

        /** One execution, its state, what it has been told and what it emitted. */
        private final class Run {
            private final String id;
            private final InMemoryExecutionState state = new InMemoryExecutionState();
            private final List<Event> log = new ArrayList<>();
            private final List<Command> commands = new ArrayList<>();
            private final List<Instant> times = new ArrayList<>();
            private final List<Decision> decisions = new ArrayList<>();
            private final List<Effect.DispatchTask> dispatched = new ArrayList<>();
            /** Every timer ever scheduled but the purge, for hostile firing: a lost cancel leaves a timer behind. */
            private final List<Timer> timers = new ArrayList<>();
            private final Set<Timer> scheduled = new HashSet<>();
            /** The timers the executor's store would hold: scheduled, neither cancelled nor fired yet, by id. */
            private final Map<String, Timer> pending = new LinkedHashMap<>();
            private final List<Timer> purges = new ArrayList<>();
            /** The purge timers of ends before a restart: still fireable (a crash may lose a cancel), and harmless. */
            private final List<Timer> cancelledPurges = new ArrayList<>();
            private int completions;
            private boolean stuck;

            Run(String id) {
                this.id = id;
            }

            void describe(StringBuilder text) {
                Execution execution = state.execution().orElse(null);
                text.append("execution ").append(id).append(": ")
                        .append(execution == null ? "none" : execution.state() + " " + execution.error())
                        .append(", pending timers ").append(pending.values().stream().map(t -> t.kind() + " "
                                + (t.taskRunId().isEmpty() ? "" : runLabel(t.taskRunId()) + "#" + t.attempt()) + " due "
                                + t.dueAt()).toList()).append('\n');
                if (execution == null) {
                    return;
                }
                List<TaskRun> runs = execution.taskRuns();
                runs.stream().limit(60).forEach(run -> text.append("  ").append(runLabel(run.id()))
                        .append(run.iteration() == null ? "" : "[" + run.iteration() + "=" + run.value() + "]")
                        .append(" in ").append(run.parentTaskRunId() == null ? "flow" : runLabel(run.parentTaskRunId()))
                        .append(": ").append(run.state()).append(" attempts ").append(run.attempts().stream()
                                .map(a -> a.number() + " " + a.state() + (a.lost() ? " lost" : "")).toList())
                        .append('\n'));
                if (runs.size() > 60) {
                    text.append("  ... ").append(runs.size() - 60).append(" more task runs\n");
                }
            }

            void resultForKnownAttempt() {
                if (dispatched.isEmpty()) {
                    return;
                }
                // mostly the latest dispatch (likely current), sometimes an older (likely stale) one
                Effect.DispatchTask target = random.nextInt(10) < 7
                        ? dispatched.getLast()
                        : dispatched.get(random.nextInt(dispatched.size()));
                State resultState = randomWorkerState();
                decide(new TaskResult(id, target.taskRunId(), target.attempt(), resultState,
                        resultState == State.RUNNING ? Map.of() : randomOutputs(),
                        resultState == State.FAILED ? "boom" : null, "worker-" + random.nextInt(3), now));
            }

            /** Answers the current attempt of one open worker run, if there is one. */
            boolean answerOpenAttempt() {
                List<TaskRun> open = state.execution().orElseThrow().taskRuns().stream()
                        .filter(r -> r.state() == State.RUNNING && r.currentAttempt()
                                .filter(a -> a.state() == State.RUNNING && a.leaseUntil() != null).isPresent())
                        .toList();
                if (open.isEmpty()) {
                    return false;
                }
                TaskRun run = open.get(random.nextInt(open.size()));
                State resultState = randomWorkerState();
                decide(new TaskResult(id, run.id(), run.currentAttempt().orElseThrow().number(), resultState,
                        resultState == State.RUNNING ? Map.of() : randomOutputs(),
                        resultState == State.FAILED ? "boom" : null, "w", now));
                return true;
            }

            /** Fires the pending timer due first, once the clock reaches it; none left: the execution is stuck. */
            void fireNextDueTimer() {
                Timer next = pending.values().stream()
                        .min(Comparator.comparing(Timer::dueAt).thenComparing(Timer::id)).orElse(null);
                if (next == null) {
                    stuck = true;
                    return;
                }
                if (now.isBefore(next.dueAt())) {
                    now = next.dueAt();
                }
                decide(new TimerFired(next, now));
            }

            void resultForFutureAttempt() {
                if (dispatched.isEmpty()) {
                    return;
                }
                Effect.DispatchTask target = dispatched.getLast();
                decide(new TaskResult(id, target.taskRunId(), target.attempt() + 1, State.SUCCESS, Map.of(), null,
                        "w", now));
            }

            void resendPrevious() {
                if (commands.isEmpty()) {
                    return;
                }
                decide(commands.get(random.nextInt(commands.size())));
            }

            /**
             * Fires any timer ever scheduled, cancelled ones included: usually once due; a lease sometimes early (a
             * lease extended since keeps its key and a later due date). Retry and timeout timers fire only when due,
             * as the store fires them.
             */
            void fireTimer() {
                if (timers.isEmpty()) {
                    return;
                }
                Timer timer = timers.get(random.nextInt(timers.size()));
                boolean early = timer.kind() == Timer.Kind.LEASE && random.nextInt(3) == 0;
                if (!early && now.isBefore(timer.dueAt())) {
                    now = timer.dueAt().plusMillis(random.nextInt(1000));
                }
                decide(new TimerFired(timer, now));
            }

            void decide(Command command) {
                Execution before = state.execution().map(Execution::copy).orElse(null);
                int eventsBefore = log.size();
                if (command instanceof TimerFired fired) {
                    // the store forgets a timer once it fires; one fired early is still waiting there
                    Timer stored = pending.get(fired.timer().id());
                    if (stored != null && !stored.dueAt().isAfter(now)) {
                        pending.remove(stored.id());
                    }
                }
                Decision decision = decider.decide(state, flow, command, now);
                decision.events().forEach(event -> {
                    if (event instanceof TaskRunCreated created) {
                        taskOfRun.put(created.taskRunId(), created.taskId());
                    }
                });
                trace.add(id.substring(id.lastIndexOf('-') + 1) + " " + now + " " + label(command) + " -> "
                        + decision.events().stream().map(Scenario.this::label).toList()
                        + decision.rejection().map(r -> " rejected " + r.kind()).orElse(""));
                commands.add(command);
                times.add(now);
                decisions.add(decision);
                log.addAll(decision.events());
                for (Event event : decision.events()) {
                    if (event instanceof ExecutionRestarted) {
                        completions = 0; // a restarted execution ends once more
                    } else if (event instanceof ExecutionCompleted) {
                        completions++;
                    }
                }
                decision.effects().forEach(effect -> {
                    switch (effect) {
                        case Effect.DispatchTask dispatch -> dispatched.add(dispatch);
                        case Effect.ScheduleTimer schedule when schedule.timer().kind() == Timer.Kind.PURGE ->
                                purges.add(schedule.timer());
                        case Effect.ScheduleTimer schedule -> {
                            timers.add(schedule.timer());
                            scheduled.add(schedule.timer());
                            pending.put(schedule.timer().id(), schedule.timer());
                        }
                        case Effect.EmitSnapshot snapshot -> assertThat(snapshot.executionId()).isEqualTo(id);
                        case Effect.SendCommand send -> check(false, () -> "a flow without subflows sent " + send);
                        case Effect.StopTasks stop -> check(command instanceof KillExecution,
                                () -> "tasks stopped by " + label(command));
                        // cancelled timers stay fireable: a crash may lose the cancel, and firing must be harmless
                        case Effect.CancelTimer cancel when cancel.timer().kind() == Timer.Kind.PURGE -> {
                            check(purges.remove(cancel.timer()), () -> "cancelled a purge never scheduled: " + cancel.timer());
                            cancelledPurges.add(cancel.timer());
                        }
                        case Effect.CancelTimer cancel -> {
                            check(scheduled.contains(cancel.timer()), () -> "cancelled a timer never scheduled: "
                                    + cancel.timer());
                            pending.remove(cancel.timer().id());
                        }
                    }
                });
                checkStep(command, before, decision, eventsBefore);
                checkCommandOutcome(command, before, decision);
            }

            /** What the command's kind and the state before it say about the outcome. */
            private void checkCommandOutcome(Command command, Execution before, Decision decision) {
                if (before == null || before.state().isTerminal()) {
                    return; // checked in checkStep
                }
                switch (command) {
                    case TaskResult result -> checkResultOutcome(result, before, decision);
                    case TimerFired fired when fired.timer().kind() == Timer.Kind.PURGE ->
                            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
                    case TimerFired fired when fired.timer().kind() == Timer.Kind.LEASE -> {
                        Attempt leased = before.taskRun(fired.timer().taskRunId())
                                .flatMap(TaskRun::currentAttempt)
                                .filter(a -> a.number() == fired.timer().attempt() && a.state() == State.RUNNING)
                                .orElse(null);
                        checkTimerRejection(decision);
                        if (leased == null || leased.leaseUntil().isAfter(now)) {
                            // outlived by a result or heartbeat, or not due yet
                            assertThat(decision.events()).isEmpty();
                        } else {
                            assertThat(decision.events().getFirst()).isInstanceOf(TaskRunAttemptEnded.class);
                        }
                    }
                    case TimerFired fired when fired.timer().kind() == Timer.Kind.RETRY -> {
                        Timer timer = fired.timer();
                        boolean waiting = before.taskRun(timer.taskRunId())
                                .filter(r -> r.state() == State.RETRYING)
                                .flatMap(TaskRun::currentAttempt)
                                .filter(a -> a.number() == timer.attempt()).isPresent();
                        checkTimerRejection(decision);
                        if (waiting) {
                            assertThat(decision.events()).as("events of a due retry").anySatisfy(e -> assertThat(e)
                                    .isInstanceOfSatisfying(TaskRunAttemptStarted.class, s -> assertThat(s)
                                            .extracting(TaskRunAttemptStarted::taskRunId, TaskRunAttemptStarted::attempt)
                                            .containsExactly(timer.taskRunId(), timer.attempt() + 1)));
                        } else {
                            assertThat(decision.events()).as("events of a retry for a run not waiting on it").isEmpty();
                        }
                    }
                    case TimerFired fired when fired.timer().kind() == Timer.Kind.RESUME -> {
                        Timer timer = fired.timer();
                        boolean waiting = before.taskRun(timer.taskRunId())
                                .filter(r -> r.state() == State.PAUSED)
                                .flatMap(TaskRun::currentAttempt)
                                .filter(a -> a.number() == timer.attempt()).isPresent();
                        checkTimerRejection(decision);
                        assertThat(decision.events()).as("events of a pause's timer").hasSizeGreaterThan(waiting ? 0 : -1);
                        if (!waiting) {
                            assertThat(decision.events()).as("events of a pause's timer for a run not waiting").isEmpty();
                        } else {
                            assertThat(state.execution().orElseThrow().taskRun(timer.taskRunId()).orElseThrow().state())
                                    .as("a waiting pause's run after its timer").isNotEqualTo(State.PAUSED);
                        }
                    }
                    case TimerFired fired -> checkTimeoutOutcome(fired.timer(), before, decision);
                    case KillExecution kill -> assertThat(state.execution().orElseThrow().state()).isEqualTo(State.KILLED);
                    case PauseExecution pause -> {
                        if (before.state() == State.RUNNING) {
                            assertThat(state.execution().orElseThrow().state()).isEqualTo(State.PAUSED);
                        } else {
                            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
                        }
                    }
                    case SubflowEnded notice -> assertThat(decision.rejection()).map(Rejection::kind)
                            .hasValue(Rejection.Kind.STALE);
                    case ResumeExecution resume -> {
                        if (before.state() == State.PAUSED) {
                            assertThat(decision.rejection()).as("a resume of a paused execution").isEmpty();
                            assertThat(decision.events()).isNotEmpty();
                        } else {
                            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
                        }
                    }
                    case CreateExecution create -> assertThat(decision.rejection()).map(Rejection::kind)
                            .hasValue(Rejection.Kind.DUPLICATE);
                    case RestartExecution restart -> assertThat(decision.rejection()).map(Rejection::kind)
                            .hasValue(Rejection.Kind.STALE);
                    case SlotAnswer answer -> assertThat(decision.rejection()).map(Rejection::kind)
                            .hasValue(Rejection.Kind.STALE);
                    case SlotCommand slot -> throw new AssertionError("a slot command reached the decider: " + slot);
                }
            }

            private void checkResultOutcome(TaskResult result, Execution before, Decision decision) {
                TaskRun target = before.taskRun(result.taskRunId()).filter(r -> r.state() == State.RUNNING).orElse(null);
                Attempt current = target == null ? null : target.currentAttempt()
                        .filter(a -> a.number() == result.attempt() && a.state() == State.RUNNING && a.leaseUntil() != null)
                        .orElse(null);
                if (current == null) {
                    // (stale) anything but the current attempt of a running task run changes nothing;
                    // the very result that ended an attempt is told apart as a duplicate
                    assertThat(decision.rejection()).map(Rejection::kind)
                            .hasValue(wasApplied(before, result) ? Rejection.Kind.DUPLICATE : Rejection.Kind.STALE);
                } else if (result.state() == State.RUNNING) {
                    assertThat(decision.events()).singleElement().isInstanceOf(TaskRunLeaseExtended.class);
                } else if (List.of(State.SUCCESS, State.WARNING, State.FAILED).contains(result.state())) {
                    Event expected = expectedEnd(target, result);
                    assertThat(decision.events().getFirst()).isEqualTo(expected);
                    if (expected instanceof TaskRunCompleted) {
                        assertThat(state.outputs(result.taskRunId())).as("outputs of %s once its result ended it",
                                runLabel(result.taskRunId())).isEqualTo(result.outputs());
                    }
                } else {
                    assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.INVALID);
                }
            }

            /**
             * How a worker's result ends its attempt, by the task's options: a failure its retry policy allows to try
             * again makes the run RETRYING; otherwise the run ends, shaped by warningOnRetry, allowFailure and
             * allowWarning.
             */
            private Event expectedEnd(TaskRun run, TaskResult result) {
                TaskOptions options = flow.task(run.taskId()).orElseThrow().options();
                RetryPolicy retry = options.retry();
                if (result.state() == State.FAILED && retry != null) {
                    Instant firstStart = run.attempts().getFirst().histories().getFirst().date();
                    Instant at = retry.nextAttemptAt(run.ownAttempts(), firstStart, now, run.id().hashCode());
                    if (at != null) {
                        return new TaskRunRetrying(run.id(), result.attempt(), result.error(), at, now);
                    }
                }
                State ended = result.state();
                if (ended == State.SUCCESS && retry != null && retry.warningOnRetry() && run.ownAttempts() > 1) {
                    ended = State.WARNING;
                }
                if (ended == State.FAILED && options.allowFailure()) {
                    ended = State.WARNING;
                }
                if (ended == State.WARNING && options.allowWarning()) {
                    ended = State.SUCCESS;
                }
                return new TaskRunCompleted(run.id(), ended, result.outputs(), result.error(), now);
            }

            /** A timer that changes nothing is STALE (sent again as a duplicate after a crash); one that does is not rejected. */
            private static void checkTimerRejection(Decision decision) {
                boolean changesNothing = decision.events().isEmpty() && decision.effects().isEmpty();
                assertThat(decision.rejection().map(Rejection::kind))
                        .isEqualTo(changesNothing ? Optional.of(Rejection.Kind.STALE) : Optional.empty());
            }

            /** A due timeout of the running attempt kills what still runs inside the flowable, or fails it. */
            private void checkTimeoutOutcome(Timer timer, Execution before, Decision decision) {
                TaskRun timed = before.taskRun(timer.taskRunId())
                        .filter(r -> r.state() == State.RUNNING)
                        .filter(r -> r.currentAttempt().map(a -> a.number() == timer.attempt()).orElse(false))
                        .orElse(null);
                checkTimerRejection(decision);
                if (timed == null) {
                    assertThat(decision.events()).as("events of a timeout for an attempt no longer running").isEmpty();
                    return;
                }
                assertThat(decision.events()).as("events of a due timeout").isNotEmpty();
                Execution after = state.execution().orElseThrow();
                Flowable flowable = (Flowable) flow.task(timed.taskId()).orElseThrow();
                Set<String> errorsAndFinally = new HashSet<>();
                flowable.errors().forEach(t -> errorsAndFinally.add(t.id()));
                flowable.finallyTasks().forEach(t -> errorsAndFinally.add(t.id()));
                for (TaskRun child : before.runs().children(timed.id())) {
                    // (6) its errors and finally still run: one waiting to start (reset by a retry) is not killed
                    if (child.state() == State.CREATED && errorsAndFinally.contains(child.taskId())) {
                        check(after.taskRun(child.id()).orElseThrow().state() != State.KILLED, () -> "(6) "
                                + runLabel(child.id()) + ", of the errors or finally of " + runLabel(timed.id())
                                + ", was killed by its timeout before it could run");
                    }
                }
                for (TaskRun inside : before.runs().descendants(timed.id())) {
                    if (inside.state() == State.RUNNING || inside.state() == State.RETRYING) {
                        assertThat(after.taskRun(inside.id()).orElseThrow().state())
                                .as("state of %s, running inside %s when it timed out", runLabel(inside.id()),
                                        runLabel(timed.id()))
                                .isEqualTo(State.KILLED);
                    }
                }
            }

            /** The result's attempt ended in the state the result reports. */
            private static boolean wasApplied(Execution before, TaskResult result) {
                return result.state().isTerminal() && before.taskRun(result.taskRunId()).stream()
                        .flatMap(run -> run.attempts().stream())
                        .anyMatch(a -> a.number() == result.attempt() && a.state() == result.state());
            }

            private void checkStep(Command command, Execution before, Decision decision, int eventsBefore) {
                // a rejected command changes nothing
                if (decision.rejection().isPresent()) {
                    assertThat(decision.events()).as("events of a rejected command").isEmpty();
                    assertThat(decision.effects()).as("effects of a rejected command").isEmpty();
                    assertThat(state.execution().orElse(null)).isEqualTo(before);
                }
                // (c) once terminal, no further events but the purge, which leaves nothing behind
                boolean purge = command instanceof TimerFired fired && fired.timer().kind() == Timer.Kind.PURGE;
                if (purge && before != null && before.state().isTerminal()
                        && ((TimerFired) command).timer().attempt() != before.restarts()) {
                    assertThat(decision.rejection()).as("the purge of an end before a restart").isPresent();
                } else if (purge && before != null && before.state().isTerminal()) {
                    assertThat(decision.events()).singleElement().isInstanceOf(ExecutionPurged.class);
                    assertThat(state.execution()).isEmpty();
                    assertThat(state.allOutputs()).isEmpty();
                } else if (command instanceof RestartExecution restart && before != null && before.state().isFailure()
                        && (before.lastRestart() == null || before.lastRestart().isBefore(restart.requestedAt()))
                        && before.taskRuns().stream().anyMatch(r -> r.state().isFailure())) {
                    assertThat(decision.rejection()).as("a restart of an execution that failed").isEmpty();
                    assertThat(decision.events().getFirst()).isInstanceOf(ExecutionRestarted.class);
                } else if (command instanceof RestartExecution && before != null && before.state().isTerminal()) {
                    assertThat(decision.rejection()).map(Rejection::kind).as("a restart with no failed run, or stale")
                            .hasValueSatisfying(kind -> assertThat(kind).isIn(Rejection.Kind.STALE, Rejection.Kind.INVALID));
                } else if (before != null && before.state().isTerminal()) {
                    assertThat(decision.events()).as("events after the execution ended").isEmpty();
                    assertThat(decision.rejection()).map(Rejection::kind).hasValueSatisfying(kind -> assertThat(kind)
                            .isEqualTo(command instanceof CreateExecution
                                    || command instanceof TaskResult r && wasApplied(before, r)
                                    ? Rejection.Kind.DUPLICATE : Rejection.Kind.STALE));
                }
                // a snapshot is emitted exactly when something happened
                assertThat(decision.effects().stream().filter(Effect.EmitSnapshot.class::isInstance).count())
                        .isEqualTo(decision.events().isEmpty() ? 0 : 1);
                // every dispatch goes with a started worker attempt (one holding a lease); a flowable's is not sent
                List<String> started = decision.events().stream()
                        .filter(e -> e instanceof TaskRunAttemptStarted s && s.leaseUntil() != null)
                        .map(e -> (TaskRunAttemptStarted) e).map(s -> s.taskRunId() + "#" + s.attempt()).toList();
                assertThat(decision.effects().stream().filter(Effect.DispatchTask.class::isInstance)
                        .map(e -> (Effect.DispatchTask) e).map(d -> d.taskRunId() + "#" + d.attempt()).toList())
                        .containsExactlyElementsOf(started);
                // (b) at most one ExecutionCompleted, and it is the last event
                assertThat(completions).as("ExecutionCompleted events").isLessThanOrEqualTo(1);
                if (completions == 1 && state.execution().isPresent()) {
                    assertThat(log.getLast()).as("last event once completed").isInstanceOf(ExecutionCompleted.class);
                    assertThat(state.execution().orElseThrow().state().isTerminal()).isTrue();
                }
                state.execution().ifPresent(this::checkShape);
                assertThat(log.size() - eventsBefore).isEqualTo(decision.events().size());
            }

            private void checkShape(Execution execution) {
                var open = new ArrayList<TaskRun>();
                var places = new HashSet<String>();
                for (TaskRun run : execution.taskRuns()) {
                    if (!run.state().isTerminal()) {
                        open.add(run);
                    }
                    checkAttempts(run);
                    checkPlace(execution, run, places);
                }
                List<TaskRun> started = open.stream().filter(r -> r.state() != State.CREATED).toList(); // a restart resets
                check(nested || started.size() <= 1, () -> "task runs running at once in a linear flow: " + labels(started));
                if (execution.state().isTerminal()) {
                    // (2) an ended execution leaves no task run behind
                    check(open.isEmpty(), () -> "(2) task runs left " + open.stream().map(r -> runLabel(r.id()) + " "
                            + r.state()).toList() + " in execution " + id + ", which ended " + execution.state());
                    check(completions == 1, () -> "an ended execution with " + completions + " ExecutionCompleted");
                }
            }

            private List<String> labels(List<TaskRun> runs) {
                return runs.stream().map(r -> runLabel(r.id())).toList();
            }

            private void checkAttempts(TaskRun run) {
                List<Attempt> attempts = run.attempts();
                // (d) attempts are numbered 1..n in order
                for (int i = 0; i < attempts.size(); i++) {
                    int expected = i + 1;
                    check(attempts.get(i).number() == expected, () -> "attempt numbers of " + runLabel(run.id()) + ": "
                            + attempts.stream().map(Attempt::number).toList());
                }
                // without retries every attempt but the first was lost to a worker. Lost attempts are bounded anyway:
                // a run reset by its retried parent keeps its attempts, and may lose one more each time it is reset
                long resets = run.histories().stream().filter(h -> h.state() == State.CREATED).count() - 1;
                check(nested ? run.lostAttempts() <= settings.maxLostAttempts() + resets
                        : attempts.size() <= settings.maxLostAttempts() + resets, // a restart resets too
                        () -> "attempts of " + runLabel(run.id()) + " (reset " + resets + " times): " + attempts);
                // only the last attempt may still run, and only while its task run runs or waits (not RETRYING, nor reset)
                for (int i = 0; i < attempts.size() - 1; i++) {
                    Attempt earlier = attempts.get(i);
                    check(earlier.state().isTerminal(), () -> "attempt " + earlier.number() + " of "
                            + runLabel(run.id()) + " is " + earlier.state() + " but is not the last");
                }
                // (a PAUSED run's attempt stays open until it is resumed)
                run.currentAttempt().ifPresent(a -> check(a.state().isTerminal()
                        == (run.state() != State.RUNNING && run.state() != State.PAUSED),
                        () -> "attempt " + a.number() + " of " + runLabel(run.id()) + " is " + a.state()
                                + " while the run is " + run.state()));
            }

            /**
             * (3) a run sits under a run of the flowable its task is declared in (at the top when declared in the
             * flow), and an open run's parent runs; (4) no two runs share a place: parent, task and iteration; a run
             * has an iteration exactly when its task is a main task of a ForEach.
             */
            private void checkPlace(Execution execution, TaskRun run, Set<String> places) {
                TaskDef task = flow.task(run.taskId()).orElse(null);
                check(task != null && !task.disabled(), () -> "a run of " + run.taskId()
                        + (task == null ? ", a task the flow does not declare" : ", which is disabled"));
                Flowable declaredIn = flow.parentOf(run.taskId()).orElse(null);
                if (run.parentTaskRunId() == null) {
                    check(declaredIn == null, () -> "(3) " + runLabel(run.id()) + " runs at the top, but its task is "
                            + "declared in " + declaredIn.id());
                } else {
                    TaskRun parent = execution.taskRun(run.parentTaskRunId()).orElse(null);
                    check(parent != null, () -> "(3) " + runLabel(run.id()) + " names a parent run that does not exist");
                    check(declaredIn != null && declaredIn.id().equals(parent.taskId()), () -> "(3) " + runLabel(run.id())
                            + " runs in " + runLabel(parent.id()) + ", but its task is declared in "
                            + (declaredIn == null ? "the flow" : declaredIn.id()));
                    boolean openRun = run.state() == State.RUNNING || run.state() == State.RETRYING;
                    check(!openRun || parent.state() == State.RUNNING, () -> "(3) " + runLabel(run.id()) + " is "
                            + run.state() + " inside " + runLabel(parent.id()) + ", which is " + parent.state());
                }
                boolean looped = declaredIn instanceof ForEach each
                        && each.mainTasks().stream().anyMatch(t -> t.id().equals(run.taskId()));
                check(looped == (run.iteration() != null), () -> runLabel(run.id()) + " has iteration "
                        + run.iteration() + (looped ? " but is a main task of a ForEach" : " outside a ForEach"));
                check(places.add(run.parentTaskRunId() + "\u0000" + run.taskId() + "\u0000" + run.iteration()),
                        () -> "(4) two runs of " + run.taskId() + " at iteration " + run.iteration() + " in "
                                + (run.parentTaskRunId() == null ? "the flow" : runLabel(run.parentTaskRunId())));
            }

            /** An ended execution scheduled exactly one purge, for the retention after its end; firing it removes it. */
            void purgeIfEnded() {
                Execution ended = state.execution().filter(e -> e.state().isTerminal()).orElse(null);
                if (ended == null) {
                    assertThat(purges).as("purges scheduled for an execution that has not ended").isEmpty();
                    return;
                }
                assertThat(purges).singleElement().satisfies(timer -> assertThat(timer.dueAt())
                        .isEqualTo(ended.histories().getLast().date().plus(settings.retention())));
                for (Timer early : cancelledPurges) {
                    now = now.isAfter(early.dueAt()) ? now : early.dueAt();
                    decide(new TimerFired(early, now));
                    check(decisions.getLast().rejection().isPresent() && state.execution().isPresent(),
                            () -> "the purge timer of an end before a restart purged the execution: " + early);
                }
                now = now.isAfter(purges.getFirst().dueAt()) ? now : purges.getFirst().dueAt();
                decide(new TimerFired(purges.getFirst(), now));
                checkReplay();
            }

            /** (a) folding all events in order with fresh appliers rebuilds the state exactly. */
            void checkReplay() {
                var replayed = new InMemoryExecutionState();
                var appliers = new Appliers();
                log.forEach(event -> appliers.apply(event, replayed));
                assertThat(replayed.execution()).as("replayed execution").isEqualTo(state.execution());
                assertThat(replayed.allOutputs()).as("replayed task outputs").isEqualTo(state.allOutputs());
                state.execution().ifPresent(execution -> execution.taskRuns().forEach(run -> assertThat(
                        replayed.outputs(run.id())).as("outputs of %s", run.taskId()).isEqualTo(state.outputs(run.id()))));
            }

            /** The same commands at the same times give the same decisions. */
            void checkDeterminism() {
                var fresh = new InMemoryExecutionState();
                var again = new Decider(settings, EXPRESSIONS);
                for (int i = 0; i < commands.size(); i++) {
                    assertThat(again.decide(fresh, flow, commands.get(i), times.get(i)))
                            .as("decision %d on replaying the commands", i).isEqualTo(decisions.get(i));
                }
                assertThat(fresh.execution()).isEqualTo(state.execution());
            }
        }
    }
}
