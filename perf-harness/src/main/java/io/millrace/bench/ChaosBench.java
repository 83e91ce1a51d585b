package io.millrace.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Topics;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code millrace bench --chaos}: under a steady load through Kafka creates, REST starts and a Kafka trigger, kills
 * each process of a cluster-shaped engine in turn with SIGKILL (executor, worker, gateway, triggers, broker, one of two
 * executors), starts it again, and counts per fault what was accepted, what ended exactly once, what was lost and what
 * was doubled. Lost and doubled must be 0.
 */
final class ChaosBench {
    /** Before the steady phase, when the plan has a warm-up. */
    static final String WARMUP = "warm-up";
    /** Before the first fault: a phase with no fault, the baseline. */
    static final String STEADY = "none (steady)";
    /**
     * Longest wait for a joined executor to hold partitions: it warms a copy of a task's state, then takes the task at
     * the next probing rebalance (a minute by default).
     */
    static final Duration SHARE_TIMEOUT = Duration.ofMinutes(3);

    /**
     * @param ratePerS the load, half Kafka creates and half REST starts, plus a tenth of it as trigger records
     * @param warmup   load before the steady phase, so that the engine's JVMs have compiled what the load runs: its
     *                 starts are counted (none may be lost or doubled) under a phase of their own
     * @param steady   load before the first fault
     * @param lead     load in a fault's phase before the kill (and, for a rebalance, between the join and the kill)
     * @param pause    load after the killed process is up again, before the next fault
     * @param drain    longest wait, once the load stopped, for the accepted executions to end
     */
    record Plan(double ratePerS, List<Fault> faults, Duration warmup, Duration steady, Duration lead, Duration pause,
                Duration drain, String topicPrefix, Map<String, String> extra) {
        /** A plan whose steady phase is half the pause and whose lead before each kill is a quarter of it (2 s at least). */
        static Plan of(double ratePerS, List<Fault> faults, Duration warmup, Duration pause, Duration drain,
                       String topicPrefix, Map<String, String> extra) {
            Duration lead = pause.dividedBy(4).compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : pause.dividedBy(4);
            return new Plan(ratePerS, faults, warmup, lead.multipliedBy(2), lead, pause, drain, topicPrefix, extra);
        }

        /**
         * How long a REST start waits for its execution's outcome: at most the pause, so that every wait has its
         * answer (the outcome, or 202) before the next fault's kill. A wait that spanned a killed gateway lost its
         * connection, and was counted unanswered under the earlier phase it was sent in.
         */
        Duration restWait() {
            return pause.compareTo(ChaosLoad.MAX_REST_WAIT) < 0 ? pause : ChaosLoad.MAX_REST_WAIT;
        }
    }

    /**
     * One guarantee's tally, what each event of the run cost, what ended without an acknowledged start, and some faulty
     * ids to look into.
     */
    record Result(String guarantee, List<ChaosLedger.Row> rows, List<ChaosLedger.Pause> pauses, long endedUnacknowledged,
                  long doubledUnacknowledged, List<String> faulty) {
        long lost() {
            return rows.stream().mapToLong(ChaosLedger.Row::lost).sum();
        }

        long doubled() {
            return rows.stream().mapToLong(ChaosLedger.Row::doubled).sum() + doubledUnacknowledged;
        }
    }

    private ChaosBench() {
    }

    /** Runs the plan on a fresh cluster of separate processes under {@code guarantee}; its logs go to {@code logs}. */
    static Result run(String engineMainClass, String guarantee, Plan plan, Path logs, Consumer<String> out) throws Exception {
        var settings = new LinkedHashMap<String, String>();
        settings.put("topic-prefix", plan.topicPrefix());
        settings.put("processing-guarantee", guarantee);
        // a killed worker's task runs go out again after the lease; a killed member leaves its group after the session
        settings.put("lease", "PT10S");
        settings.put("kafka.consumer.session.timeout.ms", "6000");
        settings.putAll(plan.extra());
        out.accept("Starting the broker, an executor, a worker, the gateway and the triggers role (" + guarantee + ")");
        long starting = System.nanoTime();
        try (ChaosCluster cluster = ChaosCluster.start(engineMainClass, logs, settings)) {
            out.accept(String.format(Locale.ROOT, "Up after %.0f s; logs in %s", seconds(starting), logs));
            MillraceConfig config = ConfigLoader.load(System.getenv(), cluster.settings(), null);
            Topics topics = new Topics(plan.topicPrefix());
            String suffix = java.util.UUID.randomUUID().toString().substring(0, 8);
            String eventTopic = "chaos-orders-" + suffix;
            TriggerStarter.createTopic(cluster.bootstrapServers(), eventTopic, config.partitions());
            deploy(cluster, Workload.W1.source());
            deploy(cluster, Workload.W7.source()
                    .replace("bootstrap.servers: localhost:9092", "bootstrap.servers: " + cluster.bootstrapServers())
                    .replace("topic: test_kestra", "topic: " + eventTopic)
                    .replace("groupId: myGroup", "groupId: chaos-" + suffix));
            TriggerStarter.awaitAssigned(cluster.bootstrapServers(), config.partitions(), "chaos-" + suffix);

            var ledger = new ChaosLedger();
            ledger.phase(plan.warmup().isZero() ? STEADY : WARMUP);
            long began = System.nanoTime();
            long stopped;
            try (var watcher = new ChaosWatcher(cluster.bootstrapServers(), topics, ledger)) {
                var load = new ChaosLoad(cluster.bootstrapServers(), topics, cluster.api(), cluster.token(), eventTopic, ledger,
                        plan.restWait());
                try {
                    load.start(plan.ratePerS());
                    out.accept(String.format(Locale.ROOT, "Load: %s/s (Kafka creates and REST starts with ?wait=true) "
                            + "plus %s/s trigger records", Sweep.rate(plan.ratePerS()), Sweep.rate(Math.max(1, plan.ratePerS() / 10))));
                    if (!plan.warmup().isZero()) {
                        Thread.sleep(plan.warmup().toMillis());
                        ledger.phase(STEADY);
                    }
                    ledger.mark(STEADY, System.nanoTime());
                    Thread.sleep(plan.steady().toMillis());
                    for (Fault fault : plan.faults()) {
                        ledger.phase(fault.label());
                        Thread.sleep(plan.lead().toMillis());
                        inject(fault, cluster, Topics.executorApplicationId(config), plan.lead(), ledger, began, out);
                        Thread.sleep(plan.pause().toMillis());
                        if (fault.addsExecutor()) {
                            // back to one executor, as the next fault expects: one more rebalance, with its own window
                            ledger.mark(fault.label() + ": SIGTERM to " + ChaosCluster.SECOND_EXECUTOR, System.nanoTime());
                            cluster.stop(ChaosCluster.SECOND_EXECUTOR, true);
                            out.accept(String.format(Locale.ROOT, "+%.0f s %s: the second executor stopped (SIGTERM)",
                                    seconds(began), fault.label()));
                            Thread.sleep(plan.lead().toMillis());
                        }
                    }
                } finally {
                    stopped = System.nanoTime();
                    load.close();
                }
                out.accept(String.format(Locale.ROOT, "Load stopped at +%.0f s: %d starts accepted, %d still open; draining",
                        seconds(began), ledger.acceptedCount(), ledger.open()));
                long deadline = System.nanoTime() + plan.drain().toNanos();
                while (ledger.open() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                Thread.sleep(3_000); // a late second completion still counts
            }
            boolean exactlyOnce = config.exactlyOnce();
            return new Result(guarantee, ledger.rows(guarantee, exactlyOnce), ledger.pauses(guarantee, stopped),
                    ledger.endedUnacknowledged(), ledger.doubledUnacknowledged(exactlyOnce), ledger.faulty(exactlyOnce, 20));
        }
    }

    private static void inject(Fault fault, ChaosCluster cluster, String applicationId, Duration lead, ChaosLedger ledger,
            long began, Consumer<String> out) throws Exception {
        String victim = switch (fault) {
            case EXECUTOR, REBALANCE, SCALE -> ChaosCluster.EXECUTOR;
            case WORKER -> ChaosCluster.WORKER;
            case GATEWAY -> ChaosCluster.GATEWAY;
            case TRIGGERS -> ChaosCluster.TRIGGERS;
            case BROKER -> ChaosCluster.BROKER;
        };
        if (fault.addsExecutor()) {
            long joining = System.nanoTime();
            ledger.mark(fault.label() + ": " + ChaosCluster.SECOND_EXECUTOR + " started", joining);
            cluster.addExecutor();
            out.accept(String.format(Locale.ROOT, "+%.0f s %s: a second executor joined", seconds(began), fault.label()));
            // the fault is on a scaled-out engine: the joined executor holds partitions of its own before the first goes
            if (cluster.awaitExecutorsSharing(applicationId, 2, SHARE_TIMEOUT)) {
                ledger.mark(fault.label() + ": " + ChaosCluster.SECOND_EXECUTOR + " holds partitions", System.nanoTime());
                out.accept(String.format(Locale.ROOT, "+%.0f s %s: the second executor holds partitions, %.1f s after "
                        + "its start", seconds(began), fault.label(), seconds(joining)));
            } else {
                out.accept(String.format(Locale.ROOT, "+%.0f s %s: the second executor holds no partition %d s after its "
                        + "start; going on", seconds(began), fault.label(), SHARE_TIMEOUT.toSeconds()));
            }
            Thread.sleep(lead.toMillis());
        }
        boolean graceful = fault == Fault.SCALE;
        String signal = graceful ? "SIGTERM" : "SIGKILL";
        long stoppedAt = System.nanoTime();
        ledger.mark(fault.label() + ": " + signal + " to " + victim, stoppedAt);
        long pid = cluster.stop(victim, graceful);
        ledger.mark(fault.label() + ": " + victim + " started again", System.nanoTime());
        cluster.restart(victim);
        out.accept(String.format(Locale.ROOT, "+%.0f s %s: %s to %s (pid %d), up again after %.1f s", seconds(began),
                fault.label(), signal, victim, pid, (System.nanoTime() - stoppedAt) / 1e9));
    }

    private static void deploy(ChaosCluster cluster, String source) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            RestStarter.deployFlow(http, cluster.api(), cluster.token(), source, "a flow");
        }
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    /** Writes {@code results.md}, {@code results.csv} and {@code pauses.csv} into {@code dir}. */
    static void write(Path dir, List<Result> results) throws java.io.IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.md"), markdown(results), UTF_8);
        Files.writeString(dir.resolve("results.csv"), csv(results), UTF_8);
        Files.writeString(dir.resolve("pauses.csv"), pausesCsv(results), UTF_8);
    }

    static String markdown(List<Result> results) {
        var md = new StringBuilder("| guarantee | fault | accepted | via Kafka / REST / trigger | ended once | lost | doubled "
                + "| re-sent | REST unanswered | REST refused | REST failed |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (Result result : results) {
            for (ChaosLedger.Row r : result.rows()) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d / %d / %d | %d | %d | %d | %d | %d | %d | %d |%n",
                        r.guarantee(), r.phase(), r.accepted(), r.viaKafka(), r.viaRest(), r.viaTrigger(), r.endedOnce(),
                        r.lost(), r.doubled(), r.resent(), r.restUnanswered(), r.restRefused(), r.restFailed()));
            }
        }
        md.append("\nLost: accepted (Kafka send acknowledged, REST 200/202) but never ended. Doubled: more than one "
                + "ExecutionCompleted for one execution (under at_least_once: two different outcomes; the same outcome sent "
                + "again after a crash is counted as re-sent, as that guarantee allows). Starts count under the fault phase "
                + "they were sent in. REST starts not accepted: unanswered (no answer: connection refused or closed, timed out), refused "
                + "(429/503 with Retry-After: shed by the gateway), failed (any other answer).\n\n");
        md.append(pausesMarkdown(results)).append('\n');
        for (Result result : results) {
            md.append(String.format(Locale.ROOT, "%s: %d execution(s) ended whose start was never acknowledged (a REST "
                    + "start whose answer never came), %d of them doubled.%n", result.guarantee(),
                    result.endedUnacknowledged(), result.doubledUnacknowledged()));
            result.faulty().forEach(line -> md.append("- ").append(line).append('\n'));
        }
        return md.toString();
    }

    /** What each event cost: the longest stretch with no execution ending, and the Kafka starts sent after it. */
    static String pausesMarkdown(List<Result> results) {
        var md = new StringBuilder("| guarantee | event | at s | longest with no ending ms (began, ms from the event) "
                + "| Kafka starts sent until the next event | ended | p50 / p99 / max ms |\n|---|---|--:|--:|--:|--:|--:|\n");
        for (Result result : results) {
            for (ChaosLedger.Pause p : result.pauses()) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %.0f (%+.0f) | %d | %d | %.1f / %.1f / %.1f |%n",
                        p.guarantee(), p.what(), p.atSeconds(), p.longestGapMs(), p.gapAfterMs(), p.kafkaStarts(),
                        p.ended(), p.p50Ms(), p.p99Ms(), p.maxMs()));
            }
        }
        md.append("\nEach event's window runs to the next event (the last one's to the end of the load). Longest with no "
                + "ending: the longest stretch between two executions' endings (read from events, committed records "
                + "only) that overlaps the window; a stretch that outlasts the next event counts under both. Latency: "
                + "from sending a Kafka create to reading its ending.\n");
        return md.toString();
    }

    static String pausesCsv(List<Result> results) {
        var csv = new StringBuilder("guarantee,event,at_s,longest_gap_ms,gap_after_ms,kafka_starts,ended,p50_ms,p99_ms,max_ms\n");
        for (Result result : results) {
            for (ChaosLedger.Pause p : result.pauses()) {
                csv.append(String.format(Locale.ROOT, "%s,\"%s\",%.3f,%.1f,%.1f,%d,%d,%.1f,%.1f,%.1f%n", p.guarantee(),
                        p.what(), p.atSeconds(), p.longestGapMs(), p.gapAfterMs(), p.kafkaStarts(), p.ended(), p.p50Ms(),
                        p.p99Ms(), p.maxMs()));
            }
        }
        return csv.toString();
    }

    static String csv(List<Result> results) {
        var csv = new StringBuilder("guarantee,fault,accepted,via_kafka,via_rest,via_trigger,ended_once,lost,doubled,resent,"
                + "rest_unanswered,rest_refused,rest_failed\n");
        for (Result result : results) {
            for (ChaosLedger.Row r : result.rows()) {
                csv.append(String.join(",", r.guarantee(), "\"" + r.phase() + "\"", Long.toString(r.accepted()),
                        Long.toString(r.viaKafka()), Long.toString(r.viaRest()), Long.toString(r.viaTrigger()),
                        Long.toString(r.endedOnce()), Long.toString(r.lost()), Long.toString(r.doubled()),
                        Long.toString(r.resent()), Long.toString(r.restUnanswered()), Long.toString(r.restRefused()),
                        Long.toString(r.restFailed())))
                        .append('\n');
            }
        }
        return csv.toString();
    }
}
