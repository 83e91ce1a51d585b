package io.millrace.core.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.InputDef;
import io.millrace.core.flow.InputType;
import io.millrace.core.flow.OutputDef;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.TaskOptions;
import io.millrace.core.flow.WorkerTask;
import io.millrace.core.flow.TaskTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Randomized property test of the decider: random linear flows, random (and hostile) command sequences
 * on a fake clock. Deterministic: each case has its own seed, printed on failure. Rerun one case with
 * {@code -Dmillrace.replay.seed=<seed> -Dmillrace.replay.cases=1}.
 */
class ReplayPropertyTest {
    private static final long BASE_SEED = Long.getLong("millrace.replay.seed", 0x5EED_2025L);
    private static final int CASES = Integer.getInteger("millrace.replay.cases", 500);
    private static final Expressions EXPRESSIONS = new Expressions();
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    @Test
    void shouldKeepReplayAndLifecycleInvariantsForRandomCommandSequences() {
        var stats = new int[State.values().length];
        var seen = new java.util.TreeMap<String, Integer>();
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
                "TaskRunLeaseExtended", "TaskRunAttemptEnded", "TaskRunCompleted", "STALE", "DUPLICATE", "INVALID");
        assertThat(seen.get("attempt>1")).as("cases with a re-dispatched attempt").isGreaterThan(CASES / 20);
        // the generator must reach the interesting endings, or the properties are checked on too little
        assertThat(stats[State.SUCCESS.ordinal()]).as("executions ending SUCCESS").isPositive();
        assertThat(stats[State.FAILED.ordinal()]).as("executions ending FAILED").isPositive();
        assertThat(stats[State.WARNING.ordinal()]).as("executions ending WARNING").isPositive();
        assertThat(stats[State.KILLED.ordinal()]).as("executions ending KILLED").isPositive();
    }

    /** One random flow, one or two executions of it, and a random sequence of commands. */
    private static final class Scenario {
        private final long seed;
        private final Random random;
        private final Flow flow;
        private final DeciderSettings settings;
        private final Decider decider;
        private final List<Run> executions = new ArrayList<>();
        private final List<String> trace = new ArrayList<>();
        private Instant now = T0;
        private List<State> finalStates = List.of();

        Scenario(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.flow = randomFlow();
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
            if (random.nextBoolean()) {
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

        /** Names of the events and rejections the case produced, and whether an attempt was re-dispatched. */
        java.util.Set<String> seen() {
            var names = new java.util.HashSet<String>();
            for (Run run : executions) {
                run.decisions.forEach(d -> {
                    d.events().forEach(e -> names.add(e.getClass().getSimpleName()));
                    d.rejection().ifPresent(r -> names.add(r.kind().name()));
                });
                if (run.dispatched.stream().anyMatch(d -> d.attempt() > 1)) {
                    names.add("attempt>1");
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
            text.append("settings: ").append(settings).append('\n');
            text.append("flow: tasks=").append(summary(flow.tasks())).append(" errors=").append(summary(flow.errors()))
                    .append(" finally=").append(summary(flow.finallyTasks())).append(" inputs=").append(flow.inputs())
                    .append(" outputs=").append(flow.outputs()).append('\n');
            int from = Math.max(0, trace.size() - 40);
            text.append("last ").append(trace.size() - from).append(" of ").append(trace.size()).append(" commands:\n");
            trace.subList(from, trace.size()).forEach(line -> text.append("  ").append(line).append('\n'));
            return text.toString();
        }

        private static String summary(List<TaskDef> tasks) {
            return tasks.stream().map(t -> t.id() + (t.disabled() ? "(disabled)" : "")).toList().toString();
        }

        // --- generation -----------------------------------------------------------------------

        private Flow randomFlow() {
            int mainCount = 1 + random.nextInt(6);
            List<TaskDef> tasks = IntStream.rangeClosed(1, mainCount).mapToObj(i -> task("t" + i, 0.2)).toList();
            List<TaskDef> errors = IntStream.rangeClosed(1, random.nextInt(3)).mapToObj(i -> task("e" + i, 0.2)).toList();
            List<TaskDef> finallyTasks = IntStream.rangeClosed(1, random.nextInt(3)).mapToObj(i -> task("f" + i, 0.2)).toList();
            var outputs = new ArrayList<OutputDef>();
            if (random.nextBoolean()) {
                outputs.add(new OutputDef("first", "STRING", "{{ outputs.t1.value ?? 'none' }}"));
            }
            if (random.nextInt(4) == 0) {
                // strict: fails the execution when t1 has no 'value' output
                outputs.add(new OutputDef("strict", "STRING", "{{ outputs.t" + (1 + random.nextInt(mainCount)) + ".value }}"));
            }
            var inputs = new ArrayList<InputDef>();
            if (random.nextInt(3) == 0) {
                inputs.add(new InputDef("count", InputType.INT, random.nextBoolean(), random.nextBoolean() ? 1 : null, null));
            }
            return new Flow("io.millrace.tests", "random", 1, Map.of("origin", "property"), inputs, tasks, errors,
                    finallyTasks, outputs, Map.of(), false, "# generated");
        }

        private TaskDef task(String id, double disabledChance) {
            return new WorkerTask(id, TaskTypes.LOG, TaskOptions.DEFAULTS.withDisabled(random.nextDouble() < disabledChance),
                    Map.of("message", id));
        }

        private Map<String, Object> randomInputs() {
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
                run.decide(new KillExecution(run.id, now));
            } else if (roll < 94) {
                run.decide(new TaskResult(run.id, "no-such-run", 1, State.SUCCESS, Map.of(), null, "w", now));
            } else {
                run.resultForFutureAttempt();
            }
        }

        /** Answers every current attempt until the executions end (or a bounded number of rounds). */
        private void drain() {
            for (int round = 0; round < 200; round++) {
                boolean any = false;
                for (Run run : executions) {
                    Execution execution = run.state.execution().orElse(null);
                    if (execution == null) {
                        run.decide(new CreateExecution(run.id, flow.namespace(), flow.id(), null, Map.of(), Map.of(), now));
                        any = true;
                        continue;
                    }
                    if (execution.state().isTerminal()) {
                        continue;
                    }
                    any = true;
                    if (random.nextInt(5) == 0) {
                        advanceClock();
                        run.fireTimer();
                    } else {
                        run.resultForCurrentAttempt();
                    }
                }
                if (!any) {
                    return;
                }
            }
        }

        private void advanceClock() {
            long maxMillis = settings.lease().toMillis() * 2;
            now = now.plusMillis(random.nextLong(maxMillis + 1));
        }

        private State randomWorkerState() {
            int roll = random.nextInt(100);
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
            private final List<Timer> timers = new ArrayList<>();
            private final List<Timer> purges = new ArrayList<>();

            Run(String id) {
                this.id = id;
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

            void resultForCurrentAttempt() {
                Execution execution = state.execution().orElseThrow();
                execution.taskRuns().stream().filter(r -> !r.state().isTerminal()).findFirst().ifPresent(run -> {
                    int attempt = run.currentAttempt().map(Attempt::number).orElse(1);
                    State resultState = randomWorkerState();
                    decide(new TaskResult(id, run.id(), attempt, resultState, randomOutputs(), null, "w", now));
                });
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

            void fireTimer() {
                if (timers.isEmpty()) {
                    return;
                }
                Timer timer = timers.get(random.nextInt(timers.size()));
                if (random.nextInt(3) > 0 && now.isBefore(timer.dueAt())) {
                    now = timer.dueAt().plusMillis(random.nextInt(1000)); // usually fire when due, sometimes early
                }
                decide(new TimerFired(timer, now));
            }

            void decide(Command command) {
                Execution before = state.execution().map(Execution::copy).orElse(null);
                int eventsBefore = log.size();
                Decision decision = decider.decide(state, flow, command, now);
                trace.add(now + " " + command + " -> " + decision.events().stream()
                        .map(e -> e.getClass().getSimpleName()).toList()
                        + decision.rejection().map(r -> " rejected " + r.kind()).orElse(""));
                commands.add(command);
                times.add(now);
                decisions.add(decision);
                log.addAll(decision.events());
                decision.effects().forEach(effect -> {
                    switch (effect) {
                        case Effect.DispatchTask dispatch -> dispatched.add(dispatch);
                        case Effect.ScheduleTimer schedule ->
                                (schedule.timer().kind() == Timer.Kind.PURGE ? purges : timers).add(schedule.timer());
                        case Effect.EmitSnapshot snapshot -> assertThat(snapshot.executionId()).isEqualTo(id);
                        // cancelled timers stay fireable: a crash may lose the cancel, and firing must be harmless
                        case Effect.CancelTimer cancel -> assertThat(timers).contains(cancel.timer());
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
                    case TaskResult result -> {
                        Attempt current = before.taskRun(result.taskRunId())
                                .filter(r -> !r.state().isTerminal())
                                .flatMap(TaskRun::currentAttempt)
                                .filter(a -> a.number() == result.attempt())
                                .orElse(null);
                        if (current == null) {
                            // (stale) anything but the current attempt of a running task run changes nothing;
                            // the very result that ended an attempt is told apart as a duplicate
                            assertThat(decision.rejection()).map(Rejection::kind)
                                    .hasValue(wasApplied(before, result) ? Rejection.Kind.DUPLICATE : Rejection.Kind.STALE);
                        } else if (result.state() == State.RUNNING) {
                            assertThat(decision.events()).singleElement().isInstanceOf(TaskRunLeaseExtended.class);
                        } else if (List.of(State.SUCCESS, State.WARNING, State.FAILED).contains(result.state())) {
                            assertThat(decision.events().getFirst()).isEqualTo(new TaskRunCompleted(result.taskRunId(),
                                    result.state(), result.outputs(), result.error(), now));
                            assertThat(state.outputs(result.taskRunId())).isEqualTo(result.outputs());
                        } else {
                            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.INVALID);
                        }
                    }
                    case TimerFired fired when fired.timer().kind() == Timer.Kind.PURGE ->
                            assertThat(decision.rejection()).map(Rejection::kind).hasValue(Rejection.Kind.STALE);
                    case TimerFired fired -> {
                        Attempt leased = before.taskRun(fired.timer().taskRunId())
                                .flatMap(TaskRun::currentAttempt)
                                .filter(a -> a.number() == fired.timer().attempt() && a.state() == State.RUNNING)
                                .orElse(null);
                        assertThat(decision.rejection()).isEmpty();
                        if (leased == null || leased.leaseUntil().isAfter(now)) {
                            // outlived by a result or heartbeat, or not due yet
                            assertThat(decision.events()).isEmpty();
                        } else {
                            assertThat(decision.events().getFirst()).isInstanceOf(TaskRunAttemptEnded.class);
                        }
                    }
                    case KillExecution kill -> assertThat(state.execution().orElseThrow().state()).isEqualTo(State.KILLED);
                    case CreateExecution create -> assertThat(decision.rejection()).map(Rejection::kind)
                            .hasValue(Rejection.Kind.DUPLICATE);
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
                if (purge && before != null && before.state().isTerminal()) {
                    assertThat(decision.events()).singleElement().isInstanceOf(ExecutionPurged.class);
                    assertThat(state.execution()).isEmpty();
                    assertThat(state.allOutputs()).isEmpty();
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
                // every dispatch goes with a started attempt and a lease timer
                List<TaskRunAttemptStarted> started = decision.events().stream()
                        .filter(TaskRunAttemptStarted.class::isInstance).map(TaskRunAttemptStarted.class::cast).toList();
                assertThat(decision.effects().stream().filter(Effect.DispatchTask.class::isInstance)
                        .map(e -> (Effect.DispatchTask) e).map(d -> d.taskRunId() + "#" + d.attempt()).toList())
                        .containsExactlyElementsOf(started.stream().map(s -> s.taskRunId() + "#" + s.attempt()).toList());
                // (b) at most one ExecutionCompleted, and it is the last event
                long completions = log.stream().filter(ExecutionCompleted.class::isInstance).count();
                assertThat(completions).as("ExecutionCompleted events").isLessThanOrEqualTo(1);
                if (completions == 1 && state.execution().isPresent()) {
                    assertThat(log.getLast()).as("last event once completed").isInstanceOf(ExecutionCompleted.class);
                    assertThat(state.execution().orElseThrow().state().isTerminal()).isTrue();
                }
                state.execution().ifPresent(this::checkShape);
                assertThat(log.size() - eventsBefore).isEqualTo(decision.events().size());
            }

            private void checkShape(Execution execution) {
                long active = execution.taskRuns().stream().filter(r -> !r.state().isTerminal()).count();
                assertThat(active).as("task runs running at once in a linear flow").isLessThanOrEqualTo(1);
                if (execution.state().isTerminal()) {
                    assertThat(active).as("task runs still running after the execution ended").isZero();
                    assertThat(log.stream().filter(ExecutionCompleted.class::isInstance).count()).isEqualTo(1);
                }
                for (TaskRun run : execution.taskRuns()) {
                    // (d) attempts are numbered 1..n in order
                    assertThat(run.attempts()).extracting(Attempt::number)
                            .as("attempt numbers of %s", run.taskId())
                            .containsExactlyElementsOf(IntStream.rangeClosed(1, run.attempts().size()).boxed().toList());
                    assertThat(run.attempts().size()).isLessThanOrEqualTo(settings.maxLostAttempts());
                    // only the last attempt may still run, and only while its task run does
                    for (int i = 0; i < run.attempts().size() - 1; i++) {
                        assertThat(run.attempts().get(i).state().isTerminal()).isTrue();
                    }
                    run.currentAttempt().ifPresent(a -> assertThat(a.state().isTerminal())
                            .isEqualTo(run.state().isTerminal()));
                    assertThat(flow.task(run.taskId())).hasValueSatisfying(t -> assertThat(t.disabled()).isFalse());
                }
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
