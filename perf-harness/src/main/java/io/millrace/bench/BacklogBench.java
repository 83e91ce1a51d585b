package io.millrace.bench;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.StateValue;
import io.millrace.triggers.TriggerIds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A backlog of trigger events, drained: W7's flow is deployed with its trigger disabled, {@code n} orders are written
 * to its topic, then the trigger is enabled and reads them all from the start, as after a stop. Two references, in the
 * same engine: the same {@code n} executions' create commands written straight to the commands topic (the executor's
 * full rate, and what such a backlog does to a REST start; after a fifth of them as a warm-up), and REST starts with no
 * backlog. Meanwhile a REST start
 * with {@code ?wait=true} of W1's flow every 200 ms measures whether starts from the API still get through. Every
 * event's execution id is known from the record's place (the trigger derives it so): the run counts the events whose
 * execution never ended and the executions of the flow that no event accounts for.
 */
final class BacklogBench {
    private static final Set<StateValue> TERMINAL = EnumSet.of(StateValue.SUCCESS, StateValue.WARNING, StateValue.FAILED,
            StateValue.KILLED, StateValue.SKIPPED);
    private static final Duration PROBE_EVERY = Duration.ofMillis(200);
    private static final Duration IDLE = Duration.ofSeconds(15);

    /** One phase's outcome; REST latencies in milliseconds. */
    record Phase(String name, int executions, double drainSeconds, int ended, int lost, int unexpected, List<Double> rest) {
        double perSecond() {
            return executions == 0 ? Double.NaN : executions / drainSeconds;
        }
    }

    private final String servers;
    private final URI api;
    private final String token;
    private final Topics topics;
    private final int partitions;
    private final Consumer<String> out;
    private final String run = "backlog" + UUID.randomUUID().toString().substring(0, 8);
    private final String flowId = Workload.W7.flowId();
    private final String eventTopic = "test_kestra-" + run;
    private final Map<String, Long> ended = new ConcurrentHashMap<>();
    private final Set<String> endedOfFlow = ConcurrentHashMap.newKeySet();
    private final List<double[]> probes = Collections.synchronizedList(new ArrayList<>());
    private final HttpClient http = HttpClient.newHttpClient();

    private BacklogBench(String servers, URI api, String token, Topics topics, int partitions, Consumer<String> out) {
        this.servers = servers;
        this.api = URI.create(api.toString().replaceAll("/+$", ""));
        this.token = token;
        this.topics = topics;
        this.partitions = partitions;
        this.out = out;
    }

    /** @param token the gateway's bearer token, or null for an open gateway (standalone's) */
    static List<Phase> run(String servers, URI api, String token, Topics topics, int partitions, int n,
            Consumer<String> out) throws Exception {
        return new BacklogBench(servers, api, token, topics, partitions, out).run(n);
    }

    private List<Phase> run(int n) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            admin.createTopics(List.of(new NewTopic(eventTopic, partitions, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(eventTopic));
        }
        deploy(Workload.W1.source());
        deploy(w7(true));
        var phases = new ArrayList<Phase>();
        try (var watcher = new Watcher()) {
            Thread prober = Thread.ofPlatform().name("bench-rest-probe").daemon().start(this::probe);
            try {
                long idleStart = System.nanoTime();
                Thread.sleep(IDLE.toMillis());
                phases.add(new Phase("no backlog", 0, 0, 0, 0, 0, probesSince(idleStart, System.nanoTime())));
                out.accept(String.format(Locale.ROOT, "no backlog: REST starts p50 %.1f ms", percentile(phases.getLast().rest(), 50)));
                phases.add(commands("warm-up: commands on the topic", "w", Math.max(1, n / 5)));
                phases.add(commands("commands on the topic", "c", n));
                phases.add(trigger(n));
            } finally {
                prober.interrupt();
            }
        }
        return phases;
    }

    /** The executor's full rate: {@code n} creates of the flow, as its trigger writes them, straight on the commands topic. */
    private Phase commands(String name, String tag, int n) throws Exception {
        var ids = new ArrayList<String>(n);
        long start = System.nanoTime();
        try (var producer = new KafkaProducer<>(producerSettings(), new StringSerializer(), Topics.COMMAND_SERDE.serializer())) {
            for (int i = 0; i < n; i++) {
                String id = run + "-" + tag + i;
                ids.add(id);
                var variables = new LinkedHashMap<String, Object>();
                variables.put("value", Workload.order(i));
                variables.put("topic", eventTopic);
                variables.put("partition", i % partitions);
                variables.put("offset", (long) i / partitions);
                variables.put("timestamp", Instant.now().toString());
                variables.put("headers", List.of());
                var create = new CreateExecution(id, "company.team", flowId, null, Map.of(), Map.of(), Instant.now(),
                        new ExecutionTrigger(TriggerStarter.TRIGGER_ID, "io.kestra.plugin.kafka.RealtimeTrigger", variables));
                producer.send(new ProducerRecord<>(topics.commands().name(), id, CommandMapper.toRecord(create)));
            }
        }
        out.accept(String.format(Locale.ROOT, "%s: %,d creates written in %.1f s; draining", name, n, (System.nanoTime() - start) / 1e9));
        return drain(name, ids, start);
    }

    /** The same backlog as trigger events: written while the trigger is off, then read from the start. */
    private Phase trigger(int n) throws Exception {
        var ids = Collections.synchronizedList(new ArrayList<String>(n));
        long written = System.nanoTime();
        try (var producer = new KafkaProducer<>(producerSettings(), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(eventTopic, null, System.currentTimeMillis(), null, Json.write(Workload.order(i))),
                        (metadata, error) -> {
                            if (error == null) {
                                ids.add(TriggerIds.ofRecord("company.team", flowId, TriggerStarter.TRIGGER_ID, eventTopic,
                                        metadata.partition(), metadata.offset(), metadata.timestamp()));
                            }
                        });
            }
        }
        out.accept(String.format(Locale.ROOT, "trigger: %,d events written in %.1f s (%,d acknowledged); enabling the trigger",
                n, (System.nanoTime() - written) / 1e9, ids.size()));
        long start = System.nanoTime();
        deploy(w7(false));
        return drain("trigger events on a topic", List.copyOf(ids), start);
    }

    /** Waits until every one of {@code ids} ended (or nothing ended for 60 s), and sums the phase up. */
    private Phase drain(String name, List<String> ids, long start) throws InterruptedException {
        Set<String> expected = Set.copyOf(ids);
        long lastProgress = System.nanoTime();
        int seen = 0;
        while (true) {
            int now = (int) ids.stream().filter(ended::containsKey).count();
            if (now == ids.size()) {
                break;
            }
            if (now > seen) {
                seen = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > Duration.ofSeconds(60).toNanos()) {
                break;
            }
            Thread.sleep(500);
        }
        long last = ids.stream().map(ended::get).filter(t -> t != null).mapToLong(Long::longValue).max().orElse(start);
        int done = (int) ids.stream().filter(ended::containsKey).count();
        int unexpected = 0;
        for (String id : endedOfFlow) {
            if (!expected.contains(id) && !id.startsWith(run + "-c") && !id.startsWith(run + "-w")) {
                unexpected++;
            }
        }
        double seconds = (last - start) / 1e9;
        var phase = new Phase(name, ids.size(), seconds, done, ids.size() - done, unexpected, probesSince(start, last));
        out.accept(String.format(Locale.ROOT, "%s: %,d of %,d ended in %.1f s (%,.0f executions/s), %d lost, %d unexpected; "
                        + "REST starts meanwhile p50 %.1f ms, p99 %.1f ms, max %.1f ms", name, done, ids.size(), seconds,
                phase.perSecond(), phase.lost(), unexpected, percentile(phase.rest(), 50), percentile(phase.rest(), 99),
                percentile(phase.rest(), 100)));
        return phase;
    }

    /** A REST start of W1 with {@code ?wait=true} every 200 ms, each in its own thread; records (sent at, milliseconds). */
    private void probe() {
        while (!Thread.currentThread().isInterrupted()) {
            Thread.ofVirtual().start(() -> {
                long sent = System.nanoTime();
                try {
                    var response = http.send(RestStarter.authorized(HttpRequest.newBuilder(URI.create(api + "/executions/"
                                    + Workload.NAMESPACE + "/" + Workload.W1.flowId() + "?wait=true&timeout=PT120S")), token)
                            .timeout(Duration.ofSeconds(130)).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.noBody()).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200 && response.body().contains("\"SUCCESS\"")) {
                        probes.add(new double[] {sent, (System.nanoTime() - sent) / 1e6});
                    }
                } catch (Exception e) {
                    // a failed probe is counted out: the phase's probe count shows it
                }
            });
            try {
                Thread.sleep(PROBE_EVERY.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private List<Double> probesSince(long from, long to) {
        synchronized (probes) {
            return probes.stream().filter(p -> p[0] >= from && p[0] <= to).map(p -> p[1]).sorted().toList();
        }
    }

    static double percentile(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private String w7(boolean disabled) {
        return w7(servers, eventTopic, "myGroup-" + run, disabled);
    }

    /** Kestra's W7 flow on {@code topic}, in {@code group}, reading it from the start, with its trigger on or off. */
    static String w7(String servers, String topic, String group, boolean disabled) {
        return Workload.W7.source()
                .replace("bootstrap.servers: localhost:9092", "bootstrap.servers: " + servers + "\n      auto.offset.reset: earliest")
                .replace("topic: test_kestra", "topic: " + topic)
                .replace("groupId: myGroup", "groupId: " + group + (disabled ? "\n    disabled: true" : ""));
    }

    private void deploy(String source) throws Exception {
        RestStarter.deployFlow(http, api, token, source, "a flow");
    }

    private Map<String, Object> producerSettings() {
        return Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    }

    /** Reads the executions topic (committed records) from its end: when each execution was first seen ended. */
    private final class Watcher implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        Watcher() {
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                    new StringDeserializer(), new ByteArrayDeserializer());
            String topic = topics.executions().name();
            List<TopicPartition> all = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(all);
            consumer.seekToEnd(all);
            all.forEach(consumer::position);
            thread = Thread.ofPlatform().name("bench-backlog-watcher").daemon().start(this::loop);
        }

        private void loop() {
            try {
                read();
            } catch (RuntimeException e) {
                out.accept("the executions watcher stopped: " + e); // the phases then count what it had seen
            } finally {
                consumer.close(Duration.ofSeconds(5));
            }
        }

        private void read() {
            while (running) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null || SnapshotKeys.isRun(r.key())) {
                        continue;
                    }
                    ExecutionRecord execution = Topics.SNAPSHOT_SERDE.decode(r.value()).getExecution();
                    if (TERMINAL.contains(execution.getState())) {
                        ended.putIfAbsent(r.key(), System.nanoTime());
                        if (flowId.equals(execution.getFlowId())) {
                            endedOfFlow.add(r.key());
                        }
                    }
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(10_000);
        }
    }

    static String markdown(List<Phase> phases) {
        var md = new StringBuilder("| backlog | executions | drained in | executions/s | lost | unexpected | REST starts "
                + "| REST p50 | REST p99 | REST max |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Phase p : phases) {
            md.append(String.format(Locale.ROOT, "| %s | %,d | %s | %s | %d | %d | %d | %.1f ms | %.1f ms | %.1f ms |%n",
                    p.name(), p.executions(), p.executions() == 0 ? "" : String.format(Locale.ROOT, "%.1f s", p.drainSeconds()),
                    p.executions() == 0 ? "" : String.format(Locale.ROOT, "%,.0f", p.perSecond()), p.lost(), p.unexpected(),
                    p.rest().size(), percentile(p.rest(), 50), percentile(p.rest(), 99), percentile(p.rest(), 100)));
        }
        return md.toString();
    }

    static void write(Path results, List<Phase> phases) throws Exception {
        Files.writeString(results.resolve("backlog.md"), markdown(phases), StandardCharsets.UTF_8);
    }
}
