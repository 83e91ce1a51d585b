package io.millrace.bench;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.KafkaPassThrough;
import io.millrace.serdes.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code millrace bench}: open-loop latency and throughput of a workload, against a running or self-started engine. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure latency and throughput: open-loop starts at each rate of a sweep, latency from the due",
                "start to the terminal snapshot, next to the Kafka floor. Writes results.md, results.csv and latency.svg.",
                "Without --bootstrap-servers it starts a standalone engine per setting in its own JVM.",
                "Settings given as comma-separated lists are compared: one engine per combination.",
                "--engine-jar compares builds the same way: one engine per jar, each setting's builds one after the other."})
public final class BenchCommand implements Callable<Integer> {
    enum Via { kafka, rest }

    private final String engineMainClass;
    private final List<PoisonBench.Check> poisonChecks = new ArrayList<>();

    @Option(names = "--workload", defaultValue = "W1", description = "W1 (OutputValues, Log), W2 (JSONata, OutputValues), "
            + "W3 (Sleep 50 ms), W4 (Sleep 5 s), W5 (Kestra's loop: ForEach over 100 values, 101 task runs), "
            + "W6 (Kestra's branches: five If, each with a Log, 10 task runs), W7 (Kestra's realtime-kafka-json flow "
            + "started by JSON orders on its Kafka trigger's topic), W8 (a Subflow that waits for a child of W1's shape); "
            + "default ${DEFAULT-VALUE}")
    Workload workload;

    @Option(names = "--rates", split = ",", converter = RateConverter.class,
            description = "Offered rates in executions/s (or per minute: 100/min), measured in order (default: the "
                    + "workload's standard sweep: W1-W4 50,100,200,400,800,1600; W5 1,2,5,10,15,20; "
                    + "W6 100,200,400,800,1600,3200,6400/min)")
    List<Double> rates;

    @Option(names = "--warmup", defaultValue = "10s", converter = DurationConverter.class,
            description = "Least warm-up (at the first rate unless --warmup-rate; with --chaos, the load's first phase, "
                    + "before the steady one); 0s for none (default ${DEFAULT-VALUE})")
    Duration warmup;

    @Option(names = "--warmup-rate", converter = RateConverter.class,
            description = "Rate of the warm-up (default: the first rate). Below the ceiling, then --rates at twice it,"
                    + " measures an overload on a warm engine")
    Double warmupRate;

    @Option(names = "--warmup-max", defaultValue = "100s", converter = DurationConverter.class,
            description = "Longest warm-up: it ends earlier once the JIT compilers of the engine and the harness have "
                    + "settled. 100 s keeps the standard sweep under 5 minutes; a cold engine on 2 cores compiles "
                    + "for about 120 s (default ${DEFAULT-VALUE})")
    Duration warmupMax;

    @Option(names = "--duration", converter = DurationConverter.class,
            description = "Measurement window per rate (default 15s; 60s for W5 and W6, whose rates are a few per second)")
    Duration duration;

    @Option(names = "--floor-duration", defaultValue = "3s", converter = DurationConverter.class,
            description = "Kafka-floor window per rate (default ${DEFAULT-VALUE})")
    Duration floorDuration;

    @Option(names = "--drain", converter = DurationConverter.class,
            description = "How long to wait for a window's last executions (default 10s; 30s for W5)")
    Duration drain;

    @Option(names = "--ingest", description = "Instead of a sweep: how fast a Kafka trigger turns records into create "
            + "commands against a plain consumer on the same broker, for events of 256 B to 64 KiB on 1 and 16 partitions")
    boolean ingest;

    @Option(names = "--backlog", description = "Instead of a sweep: N events of W7's trigger written while the trigger is "
            + "off, then drained, against the same N creates written straight to the commands topic, with REST starts "
            + "measured meanwhile (e.g. 100000)")
    Integer backlog;

    @Option(names = "--poison", description = "Instead of a sweep: the poison suite. The workload at one rate (--rates, "
            + "default 100) over two windows (--duration, default 40s); as the second begins, every poison flow is started "
            + "once and records that do not decode reach every topic the roles read. Each poison execution must end within "
            + "30 s, FAILED naming its limit; a flow nested 200 levels is refused; the load's p99 stays within 2x. Then "
            + "the engine the bench started is killed with SIGKILL and started again on the same data: idle, it must use "
            + "at most 50%% of a core a process, every poison execution must stay as it ended, and every execution the "
            + "windows started must have ended exactly once (skipped against a running engine). Needs the API (--api "
            + "for a running engine). Writes poison.md; exits 1 when a check fails")
    boolean poison;

    @Option(names = "--poison-only", split = ",", description = "With --poison: only these poisons (flow ids, e.g. "
            + "wide-read,big-outputs; 'records' for the records that do not decode; 'nested' for the nested flow)")
    List<String> poisonOnly = List.of();

    @Option(names = "--chaos", description = "Instead of a sweep: the engine as separate processes (a Kafka broker, an "
            + "executor, a worker, the gateway, the triggers role) under a steady load (the first of --rates, default 100/s: "
            + "Kafka creates, REST starts with ?wait=true and a tenth of it as Kafka-trigger records); each process of "
            + "--faults in turn is killed with SIGKILL and started again. Per fault: starts accepted, ended exactly once, lost "
            + "and doubled; per event (a kill, a process started again) the longest stretch with no execution ending and the "
            + "latency of the Kafka starts sent after it; exits 1 when any was lost or doubled. Once per --processing-guarantee")
    boolean chaos;

    @Option(names = "--faults", split = ",", description = "With --chaos: the faults, in order, among executor, worker, "
            + "gateway, triggers, broker, executor-rebalance (a second executor joins and holds partitions, then the first "
            + "is killed), executor-scale (the same, the first stopped with SIGTERM); default all")
    List<String> faults = Fault.labels();

    @Option(names = "--chaos-pause", defaultValue = "10s", converter = DurationConverter.class,
            description = "With --chaos: load after a killed process is up again, before the next fault; a quarter of it "
                    + "runs before each kill, half of it before the first fault (default ${DEFAULT-VALUE})")
    Duration chaosPause;

    @Option(names = "--via", defaultValue = "kafka", description = "kafka (create commands) or rest (the gateway); default ${DEFAULT-VALUE}")
    Via via;

    @Option(names = "--bootstrap-servers", description = "Measure a running engine on this Kafka instead of starting one")
    String bootstrapServers;

    @Option(names = "--api", description = "The running engine's API, e.g. http://localhost:8080/api/v1 (needed for --via rest)")
    URI api;

    @Option(names = "--api-token", defaultValue = "${env:MILLRACE_API_TOKEN}",
            description = "Bearer token for --api, which a gateway role requires (MILLRACE_API_TOKEN)")
    String apiToken;

    @Option(names = "--engine-pid", split = ",", description = "Process ids of a running engine, for its CPU and heap")
    List<Long> enginePids = List.of();

    @Option(names = "--topic-prefix", defaultValue = "millrace.", description = "default ${DEFAULT-VALUE}")
    String topicPrefix;

    @Option(names = "--out", description = "Results folder (default results/bench-<time>)")
    Path out;

    @Option(names = "--processing-guarantee", split = ",", description = "exactly_once_v2, at_least_once, or both to compare")
    List<String> guarantees = List.of();

    @Option(names = "--stream-threads", split = ",", description = "executor num.stream.threads, e.g. 1,2")
    List<Integer> streamThreads = List.of();

    @Option(names = "--commit-interval-ms", split = ",", description = "executor commit.interval.ms, e.g. 20,100")
    List<Integer> commitIntervals = List.of();

    @Option(names = "--poll-ms", split = ",", description = "executor poll.ms")
    List<Integer> pollMs = List.of();

    @Option(names = "--partitions", split = ",", description = "partitions of the engine's topics")
    List<Integer> partitions = List.of();

    @Option(names = "--worker-concurrency", split = ",", description = "tasks a worker runs at once")
    List<Integer> workerConcurrency = List.of();

    @Option(names = "--executors", split = ",", description = "executor instances (default 1)")
    List<Integer> executors = List.of(1);

    @Option(names = "--set", description = "Any other engine setting for every run, key=value (as for the engine)")
    Map<String, String> extra = new LinkedHashMap<>();

    @Option(names = "--engine-jar", split = ",", description = "Engine builds to compare, label=path or path (labelled by "
            + "file name), e.g. before=/tmp/before/app/target/millrace.jar,after=app/target/millrace.jar: one engine per "
            + "jar and setting (default: this build)")
    List<String> engineJars = List.of();

    @Option(names = "--vary", description = "Any other engine setting to compare, key=value1,value2 (repeatable), "
            + "e.g. kafka.producer.linger.ms=0,1; java-options varies the engine JVMs' options (space-separated, after "
            + "the defaults), e.g. java-options=-XX:MaxTenuringThreshold=15,-XX:MaxTenuringThreshold=2")
    Map<String, String> vary = new LinkedHashMap<>();

    @Option(names = "--both-orders", description = "Run every setting, then every setting again in reverse order (A, B, "
            + "then B, A), the rows marked pass=1 and pass=2: on a small machine the engine started first in a run is "
            + "slower, whatever its build")
    boolean bothOrders;

    public BenchCommand(String engineMainClass) {
        this.engineMainClass = engineMainClass;
    }

    /** Every engine setting to run: each combination of the listed values. */
    List<Setting> settings() {
        var lists = new LinkedHashMap<String, List<?>>();
        lists.put("processing-guarantee", guarantees);
        lists.put("stream-threads", streamThreads);
        lists.put("commit-interval-ms", commitIntervals);
        lists.put("poll-ms", pollMs);
        lists.put("partitions", partitions);
        lists.put("worker-concurrency", workerConcurrency);
        vary.forEach((key, values) -> lists.put(key, List.of(values.split(","))));
        List<Setting> once = Setting.combinations(lists, executors, builds(), extra);
        if (!bothOrders) {
            return once;
        }
        var both = new ArrayList<Setting>();
        once.forEach(setting -> both.add(setting.inPass(1)));
        once.reversed().forEach(setting -> both.add(setting.inPass(2)));
        return both;
    }

    List<EngineBuild> builds() {
        try {
            return EngineBuild.parse(engineJars);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
    }

    /**
     * The sweep to run: the rates, window and drain given, else the workload's standard ones. The poison suite runs
     * its one rate twice (before and with the poison), in windows of 40 s unless told.
     */
    Workload.SweepShape sweep() {
        Workload.SweepShape standard = workload.standardSweep();
        if (poison) {
            double rate = rates == null ? 100 : rates.get(0);
            return new Workload.SweepShape(List.of(rate, rate), duration != null ? duration : Duration.ofSeconds(40),
                    drain != null ? drain : standard.drain());
        }
        return new Workload.SweepShape(rates != null ? rates : standard.ratesPerS(),
                duration != null ? duration : standard.duration(), drain != null ? drain : standard.drain());
    }

    @Override
    public Integer call() throws Exception {
        keepIdleConnectionsLessThanTheGateway();
        List<Setting> settings = settings();
        if (bootstrapServers != null && settings.size() > 1) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "A running engine has one setting: give lists of settings only when the harness starts the engine");
        }
        if (bootstrapServers != null && !engineJars.isEmpty()) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--engine-jar starts engines from jars: it cannot go with a running engine (--bootstrap-servers)");
        }
        for (EngineBuild build : builds()) {
            try {
                build.requireJar();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
            }
        }
        if (via == Via.rest && bootstrapServers != null && api == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--via rest against a running engine needs --api");
        }
        Path results = out != null ? out : Path.of("results", "bench-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(results);
        if (ingest) {
            return ingest(results, settings);
        }
        if (chaos) {
            return chaos(results);
        }
        if (backlog != null) {
            return backlog(results, settings);
        }
        if (poison && ((rates != null && rates.size() > 1) || (bootstrapServers != null && api == null)
                || workload.triggered())) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--poison runs one rate of a workload started by the bench, and needs --api against a running engine");
        }
        if (poison && bootstrapServers == null) {
            // the harness's own Kafka clients would log every reconnect while the killed engine's broker is down
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        }
        Workload.SweepShape sweep = sweep();
        System.out.printf(Locale.ROOT, "Millrace bench: %s via %s, rates %s/s, %s a rate, %d setting(s); results in %s%n",
                workload, via, sweep.ratesPerS().stream().map(Sweep::rate).toList(), sweep.duration(), settings.size(),
                results.toAbsolutePath());
        builds().forEach(build -> System.out.println("Engine " + build.label() + ": " + build.jar().toAbsolutePath()));
        long memoryMb = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getTotalMemorySize() >> 20;
        System.out.printf(Locale.ROOT, "Machine: %d cores, %d MiB memory, Java %s%n",
                Runtime.getRuntime().availableProcessors(), memoryMb, Runtime.version());
        var all = new ArrayList<RateResult>();
        int n = 0;
        for (Setting setting : settings) {
            n++;
            all.addAll(bootstrapServers != null ? runAgainstRunning(setting, sweep)
                    : runSelfStarted(setting, sweep, results.resolve("logs-" + n)));
            Report.write(results, all);
        }
        System.out.println();
        System.out.println(Report.markdown(all));
        System.out.println("Wrote " + results.resolve("results.md") + ", results.csv and latency.svg");
        if (poison) {
            PoisonBench.write(results, poisonChecks);
            System.out.println();
            System.out.println(PoisonBench.markdown(poisonChecks));
            System.out.println("Wrote " + results.resolve("poison.md"));
            return poisonChecks.stream().allMatch(PoisonBench.Check::passed) ? 0 : 1;
        }
        return 0;
    }

    /** The chaos suite, once per guarantee given (else under the engine's default); 1 when any start was lost or doubled. */
    private int chaos(Path results) throws Exception {
        if (bootstrapServers != null) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--chaos kills and restarts the engine's processes, so it starts its own: it cannot go with --bootstrap-servers");
        }
        // the harness's own Kafka clients would log every reconnect while the broker is down
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        List<Fault> plannedFaults;
        try {
            plannedFaults = faults.stream().map(Fault::of).toList();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        var plan = ChaosBench.Plan.of(rates != null ? rates.getFirst() : 100, plannedFaults, warmup, chaosPause,
                drain != null ? drain : Duration.ofSeconds(90), topicPrefix, extra);
        List<String> runs = guarantees.isEmpty()
                ? List.of(System.getenv().getOrDefault("MILLRACE_PROCESSING_GUARANTEE", "exactly_once_v2")) : guarantees;
        System.out.printf(Locale.ROOT, "Millrace chaos: %s/s, faults %s, %s after each; %d core(s); results in %s%n",
                Sweep.rate(plan.ratePerS()), faults, chaosPause, Runtime.getRuntime().availableProcessors(),
                results.toAbsolutePath());
        var all = new ArrayList<ChaosBench.Result>();
        for (String guarantee : runs) {
            all.add(ChaosBench.run(engineMainClass, guarantee, plan, results.resolve("logs-" + guarantee),
                    line -> System.out.println("  " + line)));
            ChaosBench.write(results, all);
        }
        System.out.println();
        System.out.println(ChaosBench.markdown(all));
        System.out.println("Wrote " + results.resolve("results.md") + ", results.csv and pauses.csv");
        boolean clean = all.stream().allMatch(r -> r.lost() == 0 && r.doubled() == 0);
        if (!clean) {
            System.out.println("FAILED: starts were lost or doubled; the logs of each process are in " + results.toAbsolutePath());
        }
        return clean ? 0 : 1;
    }

    /** The ingest measurement on each setting's broker (a self-started engine's, or the running one's). */
    private int ingest(Path results, List<Setting> settings) throws Exception {
        var rows = new ArrayList<IngestBench.Row>();
        int n = 0;
        for (Setting setting : settings) {
            n++;
            if (bootstrapServers != null) {
                rows.addAll(IngestBench.run(bootstrapServers, line -> System.out.println("  " + line)));
                continue;
            }
            System.out.println("Starting the engine: " + (setting.describe().isEmpty() ? "defaults" : setting.describe()));
            try (EngineProcess engine = EngineProcess.start(engineMainClass, setting.build(), setting.javaOptions(),
                    results.resolve("logs-" + n), setting.engineSettings(topicPrefix), setting.executors())) {
                rows.addAll(IngestBench.run(engine.bootstrapServers(), line -> System.out.println("  " + line)));
            }
        }
        IngestBench.write(results, rows);
        System.out.println();
        System.out.println(IngestBench.markdown(rows));
        System.out.println("Wrote " + results.resolve("ingest.md"));
        return 0;
    }

    /** The backlog measurement on each setting's self-started engine, or on the running one. */
    private int backlog(Path results, List<Setting> settings) throws Exception {
        if (bootstrapServers != null && api == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--backlog against a running engine needs --api");
        }
        var phases = new ArrayList<BacklogBench.Phase>();
        Topics topics = new Topics(topicPrefix);
        int n = 0;
        for (Setting setting : settings) {
            n++;
            MillraceConfig engineConfig = ConfigLoader.load(System.getenv(), setting.engineSettings(topicPrefix), null);
            if (bootstrapServers != null) {
                phases.addAll(BacklogBench.run(bootstrapServers, api, apiToken, topics, engineConfig.partitions(), backlog,
                        line -> System.out.println("  " + line)));
                continue;
            }
            System.out.println("Starting the engine: " + (setting.describe().isEmpty() ? "defaults" : setting.describe()));
            try (EngineProcess engine = EngineProcess.start(engineMainClass, setting.build(), setting.javaOptions(),
                    results.resolve("logs-" + n), setting.engineSettings(topicPrefix), setting.executors())) {
                phases.addAll(BacklogBench.run(engine.bootstrapServers(), engine.api(), apiToken, topics, engineConfig.partitions(),
                        backlog, line -> System.out.println("  " + line)));
            }
        }
        BacklogBench.write(results, phases);
        System.out.println();
        System.out.println(BacklogBench.markdown(phases));
        System.out.println("Wrote " + results.resolve("backlog.md"));
        return 0;
    }

    private List<RateResult> runAgainstRunning(Setting setting, Workload.SweepShape sweep) throws Exception {
        try (EngineProbe probe = enginePids.isEmpty() ? EngineProbe.none() : EngineProbe.attach(enginePids)) {
            String guarantee = setting.guarantee("unknown");
            return measure(setting, sweep, guarantee, bootstrapServers, api, probe, () -> Double.NaN, null);
        }
    }

    private List<RateResult> runSelfStarted(Setting setting, Workload.SweepShape sweep, Path logs) throws Exception {
        System.out.println("Starting the engine: " + (setting.describe().isEmpty() ? "defaults" : setting.describe()));
        try (EngineProcess engine = EngineProcess.start(engineMainClass, setting.build(), setting.javaOptions(), logs,
                setting.engineSettings(topicPrefix), setting.executors());
             EngineProbe probe = EngineProbe.attach(engine.pids())) {
            // the engine inherits this environment, so its default guarantee may come from there
            String guarantee = setting.guarantee(System.getenv().getOrDefault("MILLRACE_PROCESSING_GUARANTEE", "exactly_once_v2"));
            return measure(setting, sweep, guarantee, engine.bootstrapServers(), engine.api(), probe, engine::storeMb,
                    engine);
        }
    }

    /** @param started the engine the bench started, which the poison suite kills and restarts; null for a running one */
    private List<RateResult> measure(Setting setting, Workload.SweepShape sweep, String guarantee, String servers,
            URI engineApi, EngineProbe probe, java.util.function.DoubleSupplier storeMb, EngineProcess started)
            throws Exception {
        Topics topics = new Topics(topicPrefix);
        String runId = "bench" + UUID.randomUUID().toString().substring(0, 8);
        // the engine's configuration as its processes load it (a started one inherits this environment)
        MillraceConfig engineConfig = ConfigLoader.load(System.getenv(), setting.engineSettings(topicPrefix), null);
        String eventTopic = "test_kestra-" + runId;
        if (workload.triggered()) {
            TriggerStarter.createTopic(servers, eventTopic, engineConfig.partitions());
        }
        String flowId = deploy(servers, engineApi, topics, runId, eventTopic);
        if (workload.triggered()) {
            TriggerStarter.awaitAssigned(servers, engineConfig.partitions(), "myGroup-" + runId);
        }
        PoisonBench poisonBench = poison ? new PoisonBench(engineApi, apiToken, servers, topics, engineConfig.workerGroup(),
                poisonOnly, new ChaosLedger(), via == Via.rest ? ChaosLedger.Via.REST : ChaosLedger.Via.KAFKA)
                : null;
        if (poisonBench != null) {
            poisonBench.deploy();
            if (started != null) {
                poisonBench.watch();
            }
        }
        var tracker = poisonBench != null ? new Tracker(poisonBench::started) : new Tracker();
        FloorProbe floor = FloorProbe.create(servers, topicPrefix + "bench-floor-" + runId, engineConfig.partitions(),
                (short) 1);
        try (poisonBench; var watcher = new CompletionWatcher(servers, topics, tracker);
             Starter starter = workload.triggered() ? new TriggerStarter(servers, eventTopic, "company.team", flowId, tracker)
                     : via == Via.rest ? new RestStarter(engineApi, apiToken, workload, flowId, tracker)
                     : new KafkaStarter(servers, topics, workload, flowId, runId, tracker,
                             starterProducer(engineConfig))) {
            var engine = new Sweep.Engine() {
                public Starter starter() {
                    return starter;
                }

                public Tracker tracker() {
                    return tracker;
                }

                public EngineProbe probe() {
                    return probe;
                }

                public double storeMb() {
                    return storeMb.getAsDouble();
                }

                public FloorProbe floor() {
                    return floor;
                }

                public EngineTimers timers() {
                    return started == null ? EngineTimers.NONE : EngineTimers.read(started.metricsUrls());
                }

                public void windowStarting(int rateIndex) {
                    if (poisonBench != null) {
                        poisonBench.windowStarting(rateIndex);
                    }
                }
            };
            var plan = new Sweep.Plan(workload, guarantee, setting.describe(), sweep.ratesPerS(),
                    warmupRate != null ? warmupRate : sweep.ratesPerS().getFirst(), warmup, warmupMax,
                    sweep.duration(), floorDuration, sweep.drain());
            List<RateResult> windows = Sweep.run(plan, engine, line -> System.out.println("  " + line));
            if (poisonBench == null) {
                return windows;
            }
            poisonChecks.addAll(poisonBench.checks());
            poisonChecks.add(PoisonBench.load(windows));
            if (started != null) {
                probe.close(); // its JMX connections are to the process the restart kills (closing twice is harmless)
            }
            poisonChecks.addAll(poisonBench.restart(started, engineConfig.exactlyOnce(),
                    line -> System.out.println("  " + line)));
            var labelled = new ArrayList<RateResult>();
            for (int i = 0; i < windows.size(); i++) {
                String label = (i == 0 ? "poison=off" : "poison=on");
                labelled.add(windows.get(i).withSettings((setting.describe() + " " + label).strip()));
            }
            return labelled;
        } finally {
            floor.delete();
        }
    }

    /**
     * The JDK's HTTP client keeps an idle connection 30 s, as long as the gateway's Jetty does: a start sent on one
     * that Jetty is closing fails without an answer ("header parser received no bytes"), a race of the two, not an
     * engine that stopped answering. Reused for 10 s at most, connections are closed by this side first. Read once, when
     * the JDK's client class loads, so set before any client is built (unless the user set it).
     */
    private static void keepIdleConnectionsLessThanTheGateway() {
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            System.setProperty("jdk.httpclient.keepalive.timeout", "10");
        }
    }

    /**
     * The settings of the producer that sends the starts, as the gateway's for this engine: its linger and requests in
     * flight, a {@code kafka.*} setting's, else the engine's default for its guarantee.
     */
    static Map<String, Object> starterProducer(MillraceConfig config) {
        var props = new HashMap<>(KafkaPassThrough.engineProducerDefaults(config));
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.PRODUCER,
                Set.of(ProducerConfig.LINGER_MS_CONFIG, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)));
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        return props;
    }

    /**
     * Deploys the workload's flow: through the API when there is one, else on the flows topic under a run-unique id.
     * A triggered workload's flow reads {@code eventTopic} on the engine's broker, in a group of this run.
     */
    private String deploy(String servers, URI engineApi, Topics topics, String runId, String eventTopic) throws Exception {
        String source = workload.source();
        for (String called : workload.calls()) {
            String id = deploy(Workload.resource(called), called, servers, engineApi, topics, runId);
            source = source.replace("flowId: " + called, "flowId: " + id);
        }
        if (workload.triggered()) {
            source = source.replace("bootstrap.servers: localhost:9092", "bootstrap.servers: " + servers)
                    .replace("topic: test_kestra", "topic: " + eventTopic)
                    .replace("groupId: myGroup", "groupId: myGroup-" + runId);
        }
        return deploy(source, workload.flowId(), servers, engineApi, topics, runId);
    }

    /** Deploys one flow: through the API when there is one (its id kept), else on the flows topic under a run-unique id. */
    private String deploy(String source, String id, String servers, URI engineApi, Topics topics, String runId)
            throws Exception {
        if (engineApi != null) {
            try (HttpClient http = HttpClient.newHttpClient()) {
                RestStarter.deployFlow(http, engineApi, apiToken, source, id);
            }
            return id;
        }
        String flowId = id + "-" + runId;
        var flow = new FlowParser().parse(source.replaceFirst("(?m)^id: .*$", "id: " + flowId)).withRevision(1);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers),
                new StringSerializer(), Topics.FLOW_SERDE.serializer())) {
            producer.send(new ProducerRecord<>(topics.flows().name(), FlowMapper.key(flow.namespace(), flow.id(), 1),
                    FlowMapper.toRecord(flow, Instant.now()))).get(30, TimeUnit.SECONDS);
        }
        return flowId;
    }

    /** Parses a rate in executions/s ({@code 50}, {@code 33.34}, {@code 50/s}) or per minute ({@code 100/min}). */
    static final class RateConverter implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            var m = java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(/s|/min)?").matcher(value.trim());
            double rate = m.matches() ? Double.parseDouble(m.group(1)) : 0;
            if (!(rate > 0)) {
                throw new CommandLine.TypeConversionException("'" + value
                        + "' is not a rate such as 50, 33.34 (executions/s) or 100/min");
            }
            return "/min".equals(m.group(2)) ? rate / 60 : rate;
        }
    }

    /** Parses 10s, 500ms, 2m, 1h or ISO-8601 (PT10S). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            var m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h)").matcher(value.trim());
            if (m.matches()) {
                long amount = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    default -> Duration.ofHours(amount);
                };
            }
            try {
                return Duration.parse(value.trim());
            } catch (java.time.format.DateTimeParseException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a duration such as 10s, 500ms, 2m or PT10S");
            }
        }
    }
}
