package io.millrace.triggers;

import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.FlowTriggerSpec;
import io.millrace.core.flow.TriggerTypes;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.KafkaPassThrough;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code Flow} triggers: a consumer, in the group {@code <prefix>triggers-flow}, of the executions topic (read committed),
 * so Kafka spreads the executions over the instances. Each execution's terminal snapshot is matched against every
 * enabled Flow trigger of another flow; a match starts that flow with {@code trigger.executionId}, {@code namespace},
 * {@code flowId}, {@code flowRevision} and {@code state}, and inputs rendered against them (and {@code trigger.outputs},
 * the ended execution's flow outputs). The new execution's id is derived from the ended execution and the trigger, and
 * offsets are committed once Kafka has the creates, so a snapshot read or sent twice still starts one execution. A new
 * group starts at the end of the topic: executions that ended before the role first ran start nothing; that start is
 * committed at once ({@link StartPositions}), so executions that end while the role is down are read when it is back.
 */
final class FlowTriggers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FlowTriggers.class);

    /** A Flow trigger of a flow, read. */
    record Target(FlowTrigger trigger, FlowTriggerSpec spec) {
    }

    private static final int FETCH_MIN_BYTES = 1024 * 1024;
    private static final Duration FETCH_MAX_WAIT = Duration.ofMillis(100);
    /** How long a poll of ended executions waits for the flows watcher before it goes on with the triggers known. */
    private static final Duration FLOWS_WAIT = Duration.ofSeconds(10);

    private final Map<String, Object> consumerProperties;
    private final String topic;
    private final Producer<String, byte[]> commands;
    private final String commandsTopic;
    private final TriggerMetrics metrics;
    private final FlowsProgress flows;
    private final Expressions expressions;
    private final ConsumerLoop<String, byte[]> loop;
    private volatile List<Target> targets = List.of();
    private volatile boolean listening;

    FlowTriggers(MillraceConfig config, Producer<String, byte[]> commands, TriggerMetrics metrics, FlowsProgress flows) {
        Topics topics = Topics.of(config);
        this.topic = topics.executions().name();
        this.commands = commands;
        this.commandsTopic = topics.commands().name();
        this.metrics = metrics;
        this.flows = flows;
        this.expressions = new Expressions(config.expressionLimits());
        var props = new HashMap<String, Object>();
        // Ends are read in batches of up to 100 ms: a Flow trigger starts its flow that much later, and the executions
        // topic is fetched (and the flows topic's end asked, see awaitFlowsSavedBefore) at most ten times a second
        props.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, FETCH_MIN_BYTES);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) FETCH_MAX_WAIT.toMillis());
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.CONSUMER, ConsumerConfig.configNames()));
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, config.topicPrefix() + "triggers-flow");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumerProperties = Map.copyOf(props);
        this.loop = new ConsumerLoop<>("triggers-flow", this::consumer, new ConsumerLoop.Reader<>() {
            @Override
            public void started(KafkaConsumer<String, byte[]> consumer) {
                listening = false;
                subscribe(consumer);
            }

            @Override
            public Duration readOnce(KafkaConsumer<String, byte[]> consumer) throws Exception {
                FlowTriggers.this.readOnce(consumer);
                return Duration.ZERO;
            }
        }, () -> metrics.restarted(TriggerTypes.FLOW));
    }

    /** The enabled Flow triggers of every enabled flow, as the flows topic has them now. */
    void targets(List<Target> current) {
        targets = List.copyOf(current);
    }

    void start() {
        loop.start();
    }

    private KafkaConsumer<String, byte[]> consumer() {
        return new KafkaConsumer<>(consumerProperties, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * In the group with its share of the executions topic, from a committed position: from now on every execution that
     * ends meets the Flow triggers.
     */
    boolean listening() {
        return listening && !loop.closed();
    }

    private void subscribe(KafkaConsumer<String, byte[]> consuming) {
        consuming.subscribe(List.of(topic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // each poll's offsets are committed once its creates are sent
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (!partitions.isEmpty()) {
                    StartPositions.keep(consuming, StartPositions.fresh(partitions, consuming.committed(Set.copyOf(partitions))),
                            "Flow triggers");
                }
                listening = true;
            }
        });
    }

    private void readOnce(KafkaConsumer<String, byte[]> consuming) throws Exception {
        var sends = new ArrayList<Future<RecordMetadata>>();
        var records = consuming.poll(Duration.ofMillis(200));
        if (records.isEmpty()) {
            return;
        }
        awaitFlowsSavedBefore(consuming);
        List<Target> current = targets;
        for (ConsumerRecord<String, byte[]> record : records) {
            // no Flow trigger anywhere: nothing to decode
            if (current.isEmpty() || record.value() == null || SnapshotKeys.isRun(record.key())) {
                continue;
            }
            ExecutionRecord execution;
            try {
                execution = Topics.SNAPSHOT_SERDE.decode(record.value()).getExecution();
            } catch (RuntimeException e) {
                LOG.warn("Flow triggers skipped the unreadable snapshot {} at {}-{}@{}: {}", record.key(), record.topic(),
                        record.partition(), record.offset(), e.toString());
                metrics.skipped(TriggerTypes.FLOW);
                continue;
            }
            ended(execution, current, sends);
        }
        for (Future<RecordMetadata> send : sends) {
            send.get();
        }
        consuming.commitSync();
    }

    /**
     * Waits until the flows watcher has read every flow saved before now, so a flow saved before an execution's end was
     * read meets that end, even if the watcher is behind (a flow saved, then at once another run, is the usual case).
     */
    private void awaitFlowsSavedBefore(KafkaConsumer<String, byte[]> consuming) throws InterruptedException {
        Map<TopicPartition, Long> saved = consuming.endOffsets(flows.partitions());
        long deadline = System.nanoTime() + FLOWS_WAIT.toNanos();
        while (!flows.reached(saved) && !loop.closed()) {
            if (System.nanoTime() > deadline) {
                LOG.warn("The flows watcher has not read the flows topic up to {} within {}; the Flow triggers go on with "
                        + "the flows read so far", saved, FLOWS_WAIT);
                return;
            }
            Thread.sleep(5);
        }
    }

    private void ended(ExecutionRecord execution, List<Target> targets, List<Future<RecordMetadata>> sends) {
        String state = execution.getState().name();
        if (!FlowTriggerSpec.ended(state)) {
            return;
        }
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        for (Target target : targets) {
            FlowTrigger trigger = target.trigger();
            boolean own = trigger.namespace().equals(execution.getNamespace()) && trigger.flowId().equals(execution.getFlowId());
            if (own || !target.spec().matches(execution.getNamespace(), execution.getFlowId(), state, execution.getLabels())) {
                continue;
            }
            var variables = new LinkedHashMap<String, Object>();
            variables.put("executionId", execution.getId());
            variables.put("namespace", execution.getNamespace());
            variables.put("flowId", execution.getFlowId());
            variables.put("flowRevision", execution.getFlowRevision());
            variables.put("state", state);
            Map<String, Object> inputs;
            try {
                var context = new LinkedHashMap<String, Object>(variables);
                context.put("outputs", execution.getOutputsJson() == null ? Map.of() : Json.readMap(execution.getOutputsJson()));
                @SuppressWarnings("unchecked")
                var rendered = (Map<String, Object>) expressions.renderDeep(target.spec().inputs(), Map.of("trigger", context));
                inputs = rendered;
            } catch (ExpressionException | IllegalArgumentException e) {
                // the inputs, or the ended execution's outputs they read: that end starts nothing, and is not read again
                LOG.warn("Flow trigger {} did not start its flow after execution {}: its inputs did not render: {}",
                        trigger.key(), execution.getId(), e.getMessage());
                metrics.read(trigger, 0, 1, false);
                continue;
            }
            String id = TriggerIds.of("flow", execution.getId(), trigger.namespace(), trigger.flowId(), trigger.trigger().id());
            var create = new CreateExecution(id, trigger.namespace(), trigger.flowId(), null, inputs,
                    trigger.trigger().labels(), now, new ExecutionTrigger(trigger.trigger().id(), trigger.trigger().type(), variables));
            sends.add(commands.send(new ProducerRecord<>(commandsTopic, id, Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(create)))));
            metrics.read(trigger, 1, 0, false);
        }
    }

    @Override
    public void close() {
        loop.close();
    }
}
