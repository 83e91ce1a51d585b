package io.millrace.triggers;

import io.millrace.config.MillraceConfig;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.expression.ExpressionException;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.FlowTriggerSpec;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.WakeupException;
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
 * group starts at the end of the topic: executions that ended before the role first ran start nothing.
 */
final class FlowTriggers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FlowTriggers.class);

    /** A Flow trigger of a flow, read. */
    record Target(FlowTrigger trigger, FlowTriggerSpec spec) {
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final Producer<String, byte[]> commands;
    private final String commandsTopic;
    private final TriggerMetrics metrics;
    private final Expressions expressions = new Expressions();
    private final Thread thread;
    private volatile List<Target> targets = List.of();
    private volatile boolean closed;

    FlowTriggers(MillraceConfig config, Producer<String, byte[]> commands, TriggerMetrics metrics) {
        Topics topics = Topics.of(config);
        this.topic = topics.executions().name();
        this.commands = commands;
        this.commandsTopic = topics.commands().name();
        this.metrics = metrics;
        var props = new HashMap<String, Object>();
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.CONSUMER, ConsumerConfig.configNames()));
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, config.topicPrefix() + "triggers-flow");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        this.thread = Thread.ofPlatform().name("millrace-triggers-flow").unstarted(this::run);
    }

    /** The enabled Flow triggers of every enabled flow, as the flows topic has them now. */
    void targets(List<Target> current) {
        targets = List.copyOf(current);
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic));
            while (!closed) {
                var sends = new ArrayList<Future<RecordMetadata>>();
                var records = consumer.poll(Duration.ofMillis(200));
                List<Target> current = targets;
                for (ConsumerRecord<String, byte[]> record : records) {
                    // no Flow trigger anywhere: nothing to decode
                    if (!current.isEmpty() && record.value() != null && !SnapshotKeys.isRun(record.key())) {
                        ended(Topics.SNAPSHOT_SERDE.decode(record.value()).getExecution(), current, sends);
                    }
                }
                for (Future<RecordMetadata> send : sends) {
                    send.get();
                }
                if (!records.isEmpty()) {
                    consumer.commitSync();
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.error("Flow triggers stopped; they start again with the role", e);
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
            } catch (ExpressionException e) {
                LOG.warn("Flow trigger {} did not start its flow after execution {}: its inputs did not render: {}",
                        trigger.key(), execution.getId(), e.getMessage());
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
        closed = true;
        consumer.wakeup();
        if (thread.isAlive()) {
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        consumer.close(Duration.ofSeconds(5));
    }
}
