package io.millrace.triggers;

import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowTriggerSpec;
import io.millrace.core.flow.TriggerDef;
import io.millrace.core.flow.TriggerTypes;
import io.millrace.serdes.FlowKafkaReach;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.HttpTargets;
import io.millrace.serdes.KafkaMeters;
import io.millrace.serdes.KafkaPassThrough;
import io.millrace.serdes.RecoveringStreams;
import io.millrace.serdes.RecoveryPolicy;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The triggers role: reads every flow revision from the flows topic, and runs the Kafka triggers of each flow's latest
 * revision while the flow and the trigger are enabled. Deploying, changing or disabling a flow starts, restarts or stops
 * its triggers, without a restart. Every instance runs every Kafka trigger: Kafka spreads each trigger's partitions over
 * the instances through the trigger's consumer group. Schedule triggers run in a Kafka Streams application of the role
 * ({@link Schedules}), whose partitions Kafka spreads the same way, and Flow triggers on a consumer group of the
 * executions topic ({@link FlowTriggers}). Webhook triggers are served by the gateway. Kafka triggers read nothing while
 * the executor has a backlog of commands ({@link ExecutorBacklog}), so a backlog of events never queues far ahead of
 * other starts.
 */
public final class Triggers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Triggers.class);

    private final Topics topics;
    private final KafkaProducer<String, byte[]> commands;
    private final KafkaConsumer<String, byte[]> flows;
    private final TriggerMetrics metrics;
    /** The latest revision read of each flow, parsed once (null when it does not parse: its triggers do not run). */
    private final Map<String, Latest> latest = new HashMap<>();
    private final Map<String, KafkaTrigger> running = new LinkedHashMap<>();
    private final TriggerRefusals refusals;
    private final FlowKafkaReach reach;
    private boolean caughtUp;
    private final Thread watcher;
    private final RecoveringStreams schedules;
    private final FlowTriggers flowTriggers;
    private final FlowsProgress flowsProgress = new FlowsProgress();
    private final SchemaRegistries registries;
    private final ExecutorBacklog backlog;
    private volatile boolean closed;
    private final List<AutoCloseable> kafkaMetrics = new ArrayList<>();

    private Triggers(MillraceConfig config, MeterRegistry registry, HttpTargets registryTargets) {
        this.topics = Topics.of(config);
        this.registries = new SchemaRegistries(registryTargets);
        this.metrics = new TriggerMetrics(registry);
        this.reach = FlowKafkaReach.of(config);
        this.refusals = new TriggerRefusals(target -> KafkaTrigger.refusal(target, reach, registries), refusal -> {
            LOG.error("Kafka trigger {} does not start: {}", refusal.key(), refusal.why());
            metrics.refused(refusal.target());
        });
        var producer = new HashMap<String, Object>();
        producer.put(ProducerConfig.LINGER_MS_CONFIG, config.producerLingerMs());
        producer.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.PRODUCER, ProducerConfig.configNames()));
        producer.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        producer.put(CommonClientConfigs.CLIENT_ID_CONFIG, config.topicPrefix() + "triggers-commands");
        producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producer.put(ProducerConfig.ACKS_CONFIG, "all");
        this.commands = new KafkaProducer<>(producer, new StringSerializer(), new ByteArraySerializer());
        var consumer = new HashMap<String, Object>();
        consumer.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.CONSUMER, ConsumerConfig.configNames()));
        consumer.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        consumer.put(CommonClientConfigs.CLIENT_ID_CONFIG, config.topicPrefix() + "triggers-flows");
        this.flows = new KafkaConsumer<>(consumer, new StringDeserializer(), new ByteArrayDeserializer());
        this.watcher = Thread.ofPlatform().name("millrace-triggers-flows").unstarted(this::watch);
        this.flowTriggers = new FlowTriggers(config, commands, metrics, flowsProgress);
        this.backlog = new ExecutorBacklog(config);
        kafkaMetrics.add(KafkaMeters.bind(commands, registry));
        kafkaMetrics.add(KafkaMeters.bind(flows, registry));
        // a schedule's state is in Kafka: a stream thread, or the whole client, that fails starts again from it
        this.schedules = RecoveringStreams.start("triggers", () -> Schedules.topology(topics),
                Schedules.properties(config), RecoveryPolicy.DEFAULT, registry);
    }

    /**
     * Creates the flows and commands topics if missing, then follows the flows. Schema registries are reached as a
     * worker role's {@code http.Request} reaches its targets ({@link HttpTargets#forRole}).
     */
    public static Triggers start(MillraceConfig config, MeterRegistry registry) {
        return start(config, registry, HttpTargets.forRole(config));
    }

    /** As {@link #start}, with schema registries reached as standalone's {@code http.Request} reaches its targets. */
    public static Triggers startStandalone(MillraceConfig config, MeterRegistry registry) {
        return start(config, registry, HttpTargets.forStandalone(config));
    }

    private static Triggers start(MillraceConfig config, MeterRegistry registry, HttpTargets registryTargets) {
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.flows(), topics.commands(), topics.executions()));
        var triggers = new Triggers(config, registry, registryTargets);
        triggers.watcher.start();
        return triggers;
    }

    /**
     * Follows the flows and runs the schedules: not stopping, and the schedules' Kafka Streams up or recovering from a
     * failure by itself ({@code /health/live}).
     */
    public boolean running() {
        return !closed && watcher.isAlive() && schedules.alive();
    }

    /**
     * Running, with the schedules' Kafka Streams running or rebalancing, the flows topic read and the Flow triggers
     * listening: an execution that ends from now on starts the flows whose Flow triggers it matches.
     */
    public boolean ready() {
        return running() && schedules.runningOrRebalancing() && flowTriggers.listening();
    }

    /** Waits until {@link #ready()}, at most {@code timeout}; answers whether it is. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready() && !closed && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        return ready();
    }

    /** A flow's latest revision: its number, when it was saved, and the flow (null when it does not parse). */
    private record Latest(int revision, Instant savedAt, Flow flow) {
    }

    private void watch() {
        try {
            String topic = topics.flows().name();
            List<TopicPartition> partitions = flows.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            flows.assign(partitions);
            flows.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = flows.endOffsets(partitions);
            while (!closed) {
                var records = flows.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, byte[]> record : records) {
                    read(record);
                }
                var positions = new HashMap<TopicPartition, Long>();
                partitions.forEach(partition -> positions.put(partition, flows.position(partition)));
                boolean catchingUp = !caughtUp && partitions.stream().allMatch(p -> positions.get(p) >= end.get(p));
                if (!records.isEmpty() || catchingUp) {
                    reconcile();
                }
                flowsProgress.read(positions);
                if (catchingUp) {
                    // only now: an execution's end must meet every Flow trigger of the flows on the topic
                    flowTriggers.start();
                    caughtUp = true;
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.error("The triggers stopped following the flows topic", e);
        }
    }

    private void read(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            return;
        }
        FlowRecord flow;
        try {
            flow = Topics.FLOW_SERDE.decode(record.value());
        } catch (RuntimeException e) {
            LOG.warn("Skipping the unreadable flow record {}: {}", record.key(), e.toString());
            return;
        }
        String key = Flow.key(flow.getNamespace(), flow.getId());
        Latest known = latest.get(key);
        if (known != null && known.revision() > flow.getRevision()) {
            return;
        }
        Flow parsed = null;
        try {
            parsed = FlowMapper.fromRecord(flow);
        } catch (RuntimeException e) {
            LOG.warn("Flow {} revision {} does not parse; its triggers do not run: {}", key, flow.getRevision(), e.getMessage());
        }
        latest.put(key, new Latest(flow.getRevision(), flow.getCreatedAt(), parsed));
    }

    /** Stops the triggers no enabled flow declares any more (or declares otherwise now), then starts the new ones. */
    private void reconcile() {
        var wanted = new LinkedHashMap<String, FlowTrigger>();
        var savedAt = new HashMap<String, Instant>();
        var flowTargets = new ArrayList<FlowTriggers.Target>();
        latest.values().forEach(known -> {
            Flow flow = known.flow();
            if (flow == null || flow.disabled()) {
                return;
            }
            for (TriggerDef trigger : flow.triggers()) {
                var target = new FlowTrigger(flow.namespace(), flow.id(), trigger);
                if (!trigger.disabled() && (trigger.type().equals(TriggerTypes.KAFKA_REALTIME)
                        || trigger.type().equals(TriggerTypes.KAFKA_BATCH))) {
                    wanted.put(target.key(), target);
                    savedAt.put(target.key(), known.savedAt());
                } else if (!trigger.disabled() && trigger.type().equals(TriggerTypes.FLOW)) {
                    flowTargets.add(new FlowTriggers.Target(target, FlowTriggerSpec.of(trigger)));
                }
            }
        });
        flowTriggers.targets(flowTargets);
        for (var it = running.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!entry.getValue().target().equals(wanted.get(entry.getKey()))) {
                LOG.info("Stopping trigger {}", entry.getKey());
                entry.getValue().close();
                it.remove();
            }
        }
        refusals.retainAll(wanted.keySet());
        wanted.forEach((key, target) -> {
            if (!running.containsKey(key) && refusals.refuses(key, target)) {
                return;
            }
            if (!running.containsKey(key)) {
                LOG.info("Starting trigger {} ({})", key, target.trigger().type());
                var trigger = new KafkaTrigger(target, commands, topics.commands().name(), metrics, registries, backlog,
                        savedAt.get(key), reach);
                running.put(key, trigger);
                trigger.start();
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        for (AutoCloseable metrics : kafkaMetrics) {
            try {
                metrics.close();
            } catch (Exception e) {
                LOG.warn("Unable to unbind Kafka metrics", e);
            }
        }
        flows.wakeup();
        try {
            watcher.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!schedules.close(Duration.ofSeconds(30))) {
            LOG.warn("The schedules' Kafka Streams did not stop within 30 s");
        }
        flowTriggers.close();
        running.values().forEach(KafkaTrigger::close);
        running.clear();
        registries.close();
        backlog.close();
        flows.close(Duration.ofSeconds(5));
        commands.close(Duration.ofSeconds(5));
    }
}
