package io.millrace.bench;

import io.millrace.bench.PoisonBench.Check;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The poison suite's last phase (issue #24): after the poison window, SIGKILL to the engine the bench started, a
 * restart on the same data folder, and two judgements. <em>Nothing resumes spinning</em>: once the engine is up and
 * has settled for {@link #SETTLE}, with no load, its processes use at most {@link #IDLE_CPU_PCT} of one core each over
 * {@link #CPU_WINDOW}, and every poison execution keeps the state it ended in. <em>Every accepted execution ends exactly
 * once</em>: each W1 execution started in the two windows and each poison execution has one ExecutionCompleted on the
 * events topic (read from before the first window, through the kill), none lost and none doubled, after a drain of up
 * to {@link #DRAIN}. Against a running engine ({@code --api}) the bench started no process it could kill: the phase is
 * skipped, and the report says so.
 */
final class PoisonRestart {
    /**
     * An idle engine's ceiling, in percent of one core per engine process. Idle, a standalone engine still polls its
     * topics, commits, sends heartbeats and runs its embedded broker: on 2 shared cores one restarted after a SIGKILL
     * used 21-30 % of one core from 15 to 65 s after it was up, 17-20 % after 85 s, with one 5 s slice at 40 % (a GC, a
     * late compile; docs/BENCHMARKS.md, the poison suite). A thread that spins (a render, a loop, a decision run again for ever) adds a whole core, 100 %; half
     * of one leaves room for the idle engine and its hiccups, and none for a spinning thread.
     */
    static final double IDLE_CPU_PCT = 50.0;
    /**
     * From the restarted engine's "up" line to the CPU window: its JVM compiles and its stream tasks, restored from
     * their changelogs, start (86 % of one core in the first 5 s, 50 % from 10 to 15 s, then the idle level above).
     */
    static final Duration SETTLE = Duration.ofSeconds(20);
    static final Duration CPU_WINDOW = Duration.ofSeconds(10);
    /** Longest wait, after the CPU window, for accepted executions that had not ended yet. */
    static final Duration DRAIN = Duration.ofSeconds(60);
    /** After the drain: a second completion that comes late still counts. */
    static final Duration LATE = Duration.ofSeconds(3);
    static final String KILL = "SIGKILL, restart on the same data";
    static final String IDLE = "after the restart: idle CPU";
    static final String STAYED = "after the restart: poison executions stay ended";
    static final String ONCE = "after the restart: every accepted execution ended once";

    /** A poison execution and the state it ended in before the kill. */
    record Ended(String flowId, String executionId, String state) {
    }

    /** What the restarted engine answers for an execution: its state, or why there is none. */
    interface States {
        String of(String executionId);
    }

    private PoisonRestart() {
    }

    /** The phase's one line in a report against a running engine. */
    static Check skipped() {
        return Check.skipped(KILL, "the engine runs elsewhere (--bootstrap-servers, --api): the bench started no "
                + "process it could kill, so nothing was killed, restarted or judged after a restart");
    }

    /**
     * Runs the phase against {@code engine}: kills it, starts it again, and judges the restarted engine with the
     * {@code ledger} the windows filled.
     *
     * @param states what the restarted engine answers for an execution, by its API
     */
    static List<Check> run(EngineProcess engine, ChaosLedger ledger, List<Ended> poisons, boolean exactlyOnce,
                           Function<URI, States> states, Consumer<String> out)
            throws InterruptedException {
        var checks = new ArrayList<Check>();
        long killedAt = System.nanoTime();
        long pid;
        try {
            pid = engine.killAndRestart();
        } catch (Exception e) {
            checks.add(new Check(KILL, "not up again", seconds(killedAt), e.toString(), false));
            return checks;
        }
        double upAfter = seconds(killedAt);
        out.accept(String.format(Locale.ROOT, "SIGKILL to the engine (pid %d), up again after %.1f s on the same data",
                pid, upAfter));
        checks.add(new Check(KILL, "up again", upAfter, "pid " + pid + " killed, " + engine.pids().getFirst()
                + " started with the same data folder and Kafka port", true));
        Thread.sleep(SETTLE.toMillis());
        CpuUse cpu;
        try (EngineProbe probe = EngineProbe.attach(engine.pids())) {
            CpuReading before = probe.cpu();
            long from = System.nanoTime();
            Thread.sleep(CPU_WINDOW.toMillis());
            cpu = probe.cpu().since(before, System.nanoTime() - from);
        }
        Check idle = idle(cpu, engine.pids().size());
        out.accept("idle CPU: " + idle.outcome() + " (" + idle.detail() + ")");
        checks.add(idle);
        States now = states.apply(engine.api());
        Check stayed = stayed(poisons, poisons.stream().collect(Collectors.toMap(Ended::executionId,
                p -> now.of(p.executionId()))));
        out.accept("poison executions: " + stayed.outcome());
        checks.add(stayed);
        long deadline = System.nanoTime() + DRAIN.toNanos();
        while (ledger.open() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        Thread.sleep(LATE.toMillis());
        Check once = exactlyOnce(ledger.rows("", exactlyOnce), ledger.faulty(exactlyOnce, 5));
        out.accept("executions of the windows: " + once.outcome());
        checks.add(once);
        return checks;
    }

    /**
     * Whether the restarted engine is idle: its processes' CPU over the window at most {@link #IDLE_CPU_PCT} of one
     * core each. An unknown reading fails: nothing was shown.
     */
    static Check idle(CpuUse cpu, int processes) {
        double ceiling = IDLE_CPU_PCT * processes;
        if (Double.isNaN(cpu.totalPct())) {
            return new Check(IDLE, "unknown", 0, "expected to read the engine's CPU, but could not attach to it", false);
        }
        String parts = cpu.byPartPct().entrySet().stream()
                .sorted(Map.Entry.<EnginePart, Double>comparingByValue(Comparator.reverseOrder())).limit(3)
                .map(e -> String.format(Locale.ROOT, "%s %.1f %%", e.getKey().label(), e.getValue()))
                .reduce((a, b) -> a + ", " + b).map(s -> "; most: " + s).orElse("");
        return new Check(IDLE, String.format(Locale.ROOT, "%.1f %% of one core over %d s", cpu.totalPct(),
                CPU_WINDOW.toSeconds()), 0, String.format(Locale.ROOT, "at most %.0f %% (%d process(es), from %d s after it was "
                + "up)%s", ceiling, processes, SETTLE.toSeconds(), parts), cpu.totalPct() <= ceiling);
    }

    /** Whether every poison execution is, after the restart, in the state it ended in before the kill. */
    static Check stayed(List<Ended> poisons, Map<String, String> now) {
        var moved = new ArrayList<String>();
        for (Ended p : poisons) {
            String state = now.get(p.executionId());
            if (!p.state().equals(state)) {
                moved.add(p.flowId() + " " + p.executionId() + ": " + p.state() + ", then " + state);
            }
        }
        String outcome = (poisons.size() - moved.size()) + " of " + poisons.size() + " as they ended";
        String detail = moved.isEmpty() ? "none went back to RUNNING or changed state"
                : "expected each to keep the state it ended in, but " + String.join("; ", moved);
        return new Check(STAYED, outcome, 0, detail, moved.isEmpty() && !poisons.isEmpty());
    }

    /**
     * Whether every accepted execution ended exactly once: none lost, none doubled, across the ledger's phases
     * (under at-least-once the same outcome sent again is allowed, as the chaos suite allows it).
     */
    static Check exactlyOnce(List<ChaosLedger.Row> rows, List<String> faulty) {
        long accepted = 0, once = 0, lost = 0, doubled = 0, resent = 0;
        var phases = new ArrayList<String>();
        for (ChaosLedger.Row r : rows) {
            accepted += r.accepted();
            once += r.endedOnce();
            lost += r.lost();
            doubled += r.doubled();
            resent += r.resent();
            phases.add(String.format(Locale.ROOT, "%s %d (Kafka %d, REST %d)", r.phase(), r.accepted(), r.viaKafka(),
                    r.viaRest()));
        }
        String outcome = String.format(Locale.ROOT, "%d accepted: %d once, %d lost, %d doubled%s", accepted, once, lost,
                doubled, resent > 0 ? ", " + resent + " re-sent" : "");
        String detail = String.join("; ", phases) + (faulty.isEmpty() ? "" : "; " + String.join("; ", faulty));
        return new Check(ONCE, outcome, 0, detail, accepted > 0 && lost == 0 && doubled == 0);
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }
}
