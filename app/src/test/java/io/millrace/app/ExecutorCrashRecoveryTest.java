package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.EventMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.TaskRunSnapshot;
import io.millrace.serdes.avro.AttemptRecord;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.StateHistoryRecord;
import io.millrace.serdes.avro.StateValue;
import io.millrace.serdes.avro.TaskRunRecord;
import io.millrace.worker.Worker;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kills the executor process with SIGKILL while executions of every {@link CrashFlow} are in flight (one kill per
 * processing guarantee, so that the suite stays short), starts it again and checks that every execution reached
 * exactly one outcome, SUCCESS, with the task runs and attempts it has without a
 * kill. Under exactly-once each ends with exactly one ExecutionCompleted event; under at-least-once the terminal
 * snapshot may be sent again after the crash, so the check reads the executions topic and asks for one outcome per
 * execution, none missing.
 */
class ExecutorCrashRecoveryTest {
    private static final Set<String> TERMINAL = Set.of("SUCCESS", "WARNING", "FAILED", "KILLED");

    @TempDir
    Path stateDir;

    @ParameterizedTest(name = "every crash flow under {0}")
    @ValueSource(strings = {"exactly_once_v2", "at_least_once"})
    void shouldCompleteEveryExecutionOnceAcrossAnExecutorKill(String guarantee) throws Exception {
        // given: the executions of every crash flow, started at once, so that one kill finds each kind in flight
        Map<String, String> settings = TestEngines.settings("crash", stateDir, "lease", "PT10S",
                "kafka.consumer.session.timeout.ms", "6000", "processing-guarantee", guarantee);
        MillraceConfig config = ConfigLoader.load(Map.of(), settings, null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, topics.executorTopics(List.of(config.workerGroup())));
        for (CrashFlow flow : CrashFlow.values()) {
            publishFlow(config, topics, flow);
        }
        int total = Stream.of(CrashFlow.values()).mapToInt(flow -> flow.executions).sum();
        File log = new File(System.getProperty("java.io.tmpdir"), "millrace-crash-executor-" + guarantee + ".log");
        Files.deleteIfExists(log.toPath());
        Process executor = startExecutor(settings, log);
        var outcomes = new LinkedHashMap<CrashFlow, Outcomes>();
        try (Worker worker = Worker.start(config)) {
            for (CrashFlow flow : CrashFlow.values()) {
                outcomes.put(flow, new Outcomes(config, topics, flow));
            }
            // when: executions are started over ~4 s, and the executor is killed once a tenth have completed
            var starters = Stream.of(CrashFlow.values())
                    .map(flow -> Thread.ofVirtual().start(() -> startExecutions(config, topics, flow))).toList();
            awaitAll(outcomes.values(), total / 10, Duration.ofSeconds(120));
            executor.destroyForcibly().waitFor();
            int beforeKill = outcomes.values().stream().mapToInt(o -> o.endings.size()).sum();
            executor = startExecutor(settings, log);
            for (Thread starter : starters) {
                starter.join();
            }
            awaitAll(outcomes.values(), total, Duration.ofSeconds(180));
            long quiet = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < quiet) {
                outcomes.values().forEach(Outcomes::poll);
            }

            // then: none lost, each ended once and in SUCCESS, with the runs and attempts of a run without a kill
            assertThat(beforeKill).isLessThan(total);
            outcomes.forEach((flow, seen) -> assertOutcomes(config, topics, flow, seen));
        } finally {
            executor.destroyForcibly().waitFor();
            outcomes.values().forEach(Outcomes::close);
        }
    }

    private static void assertOutcomes(MillraceConfig config, Topics topics, CrashFlow flow, Outcomes outcomes) {
        assertThat(outcomes.endings).as(() -> flow + ": " + history(config, topics, outcomes.missing()))
                .hasSize(flow.executions);
        assertThat(outcomes.endings.values()).as("%s", flow)
                .allSatisfy(states -> assertThat(states).containsOnly("SUCCESS"));
        if (config.exactlyOnce()) {
            assertThat(outcomes.endings.values()).as("%s", flow).allSatisfy(states -> assertThat(states).hasSize(1));
        }
        assertThat(outcomes.terminalSnapshots.keySet()).as("%s", flow).isEqualTo(outcomes.endings.keySet());
        assertThat(outcomes.terminalSnapshots.values()).allSatisfy(snapshots ->
                assertThat(snapshots).allSatisfy(execution -> assertRunsAsWithoutAKill(flow, execution)));
        if (flow.flow().concurrency() != null) {
            assertThat(mostRunningAtOnce(outcomes.terminalSnapshots.values())).as("most executions of %s at once", flow)
                    .isLessThanOrEqualTo(flow.flow().concurrency().limit());
        }
    }

    /** Polls every flow's outcomes until {@code wanted} executions have ended in all. */
    private static void awaitAll(Collection<Outcomes> outcomes, int wanted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (outcomes.stream().mapToInt(o -> o.endings.size()).sum() < wanted && System.nanoTime() < deadline) {
            outcomes.forEach(Outcomes::poll);
        }
    }

    /**
     * The runs of each task are as many as the flow makes, all SUCCESS; a run's attempts that were not lost are the
     * flow's, all FAILED but the last, SUCCESS. Lost attempts are left out: only the executor dies here, not the worker,
     * but when the executor is down longer than the lease (JVM start plus the 6 s session timeout, on a busy machine),
     * the restarted executor takes the running attempts for lost and dispatches them again. Those do not change the
     * outcome: a retried task's {@code taskrun.attemptsCount} counts only attempts that were not lost.
     */
    private static void assertRunsAsWithoutAKill(CrashFlow flow, Terminal execution) {
        var runs = execution.runs();
        assertThat(runs.stream().collect(Collectors.groupingBy(TaskRunRecord::getTaskId, Collectors.summingInt(r -> 1))))
                .as("runs per task of %s", execution.id())
                .isEqualTo(flow.runsPerTask);
        assertThat(runs).as("runs of %s", execution.id()).allSatisfy(run -> {
            assertThat(run.getState()).isEqualTo(StateValue.SUCCESS);
            if (run.getTaskId().equals("wait")) { // paused and resumed once: its delay kept, and fired once
                assertThat(run.getHistories()).extracting(StateHistoryRecord::getState).as("states of %s", run.getId())
                        .containsExactly(StateValue.CREATED, StateValue.RUNNING, StateValue.PAUSED, StateValue.RUNNING,
                                StateValue.SUCCESS);
            }
            var states = new ArrayList<>(Collections.nCopies(flow.attemptsPerRun(run.getTaskId()) - 1, StateValue.FAILED));
            states.add(StateValue.SUCCESS);
            assertThat(run.getAttempts().stream().filter(a -> !a.getLost()).map(AttemptRecord::getState))
                    .as("attempts not lost of %s", run.getId())
                    .containsExactlyElementsOf(states);
        });
    }

    /** The most executions that ran at once: from each one's RUNNING to its end, by the executors' clocks. */
    private static int mostRunningAtOnce(Collection<List<Terminal>> executions) {
        var changes = new java.util.TreeMap<Instant, Integer>();
        for (List<Terminal> snapshots : executions) {
            List<StateHistoryRecord> histories = snapshots.getLast().histories();
            Instant started = histories.stream().filter(h -> h.getState() == StateValue.RUNNING).findFirst()
                    .map(StateHistoryRecord::getDate).orElseThrow();
            changes.merge(started, 1, Integer::sum);
            changes.merge(histories.getLast().getDate(), -1, Integer::sum); // an end before a start at the same time
        }
        int running = 0;
        int most = 0;
        for (int change : changes.values()) {
            running += change;
            most = Math.max(most, running);
        }
        return most;
    }

    /** Starts an executor process; both runs of one test write to the same log. */
    private static Process startExecutor(Map<String, String> settings, File log) throws Exception {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Millrace.class.getName(), "executor"));
        settings.forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
                .start();
    }

    private static void publishFlow(MillraceConfig config, Topics topics, CrashFlow crashFlow) throws Exception {
        try (var producer = new KafkaProducer<>(producerProps(config), new StringSerializer(), topics.flows().valueSerde().serializer())) {
            for (var flow : crashFlow.flows()) {
                producer.send(new ProducerRecord<>(topics.flows().name(), FlowMapper.key(flow.namespace(), flow.id(), 1),
                        FlowMapper.toRecord(flow, Instant.now()))).get();
            }
        }
    }

    private static void startExecutions(MillraceConfig config, Topics topics, CrashFlow crashFlow) {
        var flow = crashFlow.flow();
        try (var producer = new KafkaProducer<>(producerProps(config), new StringSerializer(), topics.commands().valueSerde().serializer())) {
            for (int i = 0; i < crashFlow.executions; i++) {
                String id = crashFlow.executionId(i);
                producer.send(new ProducerRecord<>(topics.commands().name(), id, CommandMapper.toRecord(new CreateExecution(
                        id, flow.namespace(), flow.id(), null, Map.of("n", i), Map.of(), Instant.now()))));
                Thread.sleep(crashFlow.startEvery);
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Every record of the executor's topics about the given executions, to tell where a lost one stopped. */
    private static String history(MillraceConfig config, Topics topics, Set<String> ids) {
        var lines = new ArrayList<String>(List.of("records of the executions that did not end, " + ids + ":"));
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            for (Topics.Topic<?> topic : topics.executorTopics(List.of(config.workerGroup()))) {
                var partitions = consumer.partitionsFor(topic.name()).stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                var end = consumer.endOffsets(partitions);
                var deserializer = topic.valueSerde().deserializer();
                while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                    for (var record : consumer.poll(Duration.ofMillis(200))) {
                        if (ids.contains(record.key())) {
                            lines.add(record.topic() + "-" + record.partition() + "@" + record.offset() + " "
                                    + Instant.ofEpochMilli(record.timestamp()) + " "
                                    + deserializer.deserialize(record.topic(), record.value()));
                        }
                    }
                }
            }
        }
        return String.join("\n", lines);
    }

    private static Map<String, Object> producerProps(MillraceConfig config) {
        return Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all");
    }

    /**
     * The outcomes seen so far, execution id to terminal states: from ExecutionCompleted events under exactly-once
     * (each must come once), from terminal snapshots under at-least-once (a snapshot may be sent again); and under
     * both, every terminal snapshot of each execution.
     */
    /** An execution as its terminal snapshot showed it: its task runs as their latest snapshots had them then. */
    private record Terminal(String id, List<TaskRunRecord> runs, List<StateHistoryRecord> histories) {
    }

    private static final class Outcomes implements AutoCloseable {
        final Map<String, List<String>> endings = new HashMap<>();
        final Map<String, List<Terminal>> terminalSnapshots = new HashMap<>();
        /** The latest snapshot of each task run, by execution and creation index. */
        private final Map<String, java.util.TreeMap<Integer, TaskRunRecord>> runs = new HashMap<>();
        private final CrashFlow flow;
        private final boolean exactlyOnce;
        private final Map<String, Deserializer<?>> deserializers = new HashMap<>();
        private final KafkaConsumer<String, byte[]> consumer;

        Outcomes(MillraceConfig config, Topics topics, CrashFlow flow) {
            this.flow = flow;
            this.exactlyOnce = config.exactlyOnce();
            deserializers.put(topics.executions().name(), topics.executions().valueSerde().deserializer());
            if (exactlyOnce) {
                deserializers.put(topics.events().name(), topics.events().valueSerde().deserializer());
            }
            consumer = new KafkaConsumer<>(Map.<String, Object>of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                    new StringDeserializer(), new ByteArrayDeserializer());
            var partitions = deserializers.keySet().stream()
                    .flatMap(topic -> consumer.partitionsFor(topic).stream())
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        Set<String> missing() {
            var ids = new TreeSet<String>();
            for (int i = 0; i < flow.executions; i++) {
                ids.add(flow.executionId(i));
            }
            ids.removeAll(endings.keySet());
            return ids;
        }

        void poll() {
            for (var record : consumer.poll(Duration.ofMillis(200))) {
                if (SnapshotKeys.isRun(record.key())) {
                    if (record.value() != null) {
                        TaskRunSnapshot run = Topics.RUN_SNAPSHOT_SERDE.decode(record.value());
                        runs.computeIfAbsent(run.getExecutionId(), k -> new java.util.TreeMap<>()).put(run.getSeq(), run.getRun());
                    }
                    continue;
                }
                switch (deserializers.get(record.topic()).deserialize(record.topic(), record.value())) {
                    case EventRecord events -> EventMapper.fromRecord(events).stream()
                            .filter(ExecutionCompleted.class::isInstance).map(ExecutionCompleted.class::cast)
                            .forEach(completed -> end(record.key(),
                                    outcome(completed.state().name(), completed.error())));
                    case ExecutionSnapshot snapshot when TERMINAL.contains(snapshot.getExecution().getState().name()) -> {
                        var execution = snapshot.getExecution();
                        // a small execution's runs are inline; a bigger one's travel in snapshots of their own
                        List<TaskRunRecord> latest = snapshot.getTaskRunCount() == null ? execution.getTaskRuns()
                                : List.copyOf(runs.getOrDefault(record.key(), new java.util.TreeMap<>()).values());
                        if (started(record.key())) {
                            terminalSnapshots.computeIfAbsent(record.key(), k -> new ArrayList<>())
                                    .add(new Terminal(record.key(), latest, execution.getHistories()));
                        }
                        if (!exactlyOnce) {
                            end(record.key(), outcome(execution.getState().name(), execution.getError()));
                        }
                    }
                    default -> {
                    }
                }
            }
        }

        /** The outcome of one of the started executions; the executions they start (a subflow's) are theirs to check. */
        private void end(String id, String state) {
            if (started(id)) {
                endings.computeIfAbsent(id, k -> new ArrayList<>()).add(state);
            }
        }

        private boolean started(String id) {
            return id.startsWith(flow.name().toLowerCase() + "-");
        }

        /** The terminal state, with the error when there is one, so that a failed assertion says why. */
        private static String outcome(String state, String error) {
            return error == null ? state : state + ": " + error;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
