package io.millrace.triggers;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.flow.TriggerDef;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowKafkaReach;
import io.millrace.serdes.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka trigger of one flow: a consumer in the trigger's {@code groupId} on the cluster its {@code properties} name,
 * run by a {@link ConsumerLoop} (its failure policy: a failure restarts the consumer from the last commit, after a
 * backoff). What is the same for both kinds is here: the consumer's settings and start position, records read as
 * Kestra's variables, creates, and unreadable records. How records become creates and how offsets are committed is the
 * kind's {@link Mode}: {@link RealtimeKafkaTrigger} ({@code io.kestra.plugin.kafka.RealtimeTrigger}, one execution a
 * record) or {@link BatchKafkaTrigger} ({@code io.kestra.plugin.kafka.Trigger}, one a batch). Both start each record
 * exactly once: execution ids derived from the records, offsets committed only past records whose creates Kafka has.
 * A record whose key or value does not read as the trigger's serde type follows {@code onSerdeError} (SKIPPED, the
 * default: counted and logged; DLQ: copied as it came to the named topic on the trigger's cluster, with the error in a
 * header) and never stops the trigger. If Kafka fails, or a deserializer cannot look up what it needs (AVRO's schema
 * registry is down), the loop starts again from the last commit: the record is read again later, never skipped.
 */
final class KafkaTrigger implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaTrigger.class);
    static final String ERROR_HEADER = "millrace.error";

    /** How one kind of Kafka trigger reads; it subscribes with {@link KafkaTrigger#subscribe}. */
    interface Mode extends ConsumerLoop.Reader<byte[], byte[]> {
        /** Before partitions go to another consumer. */
        void revoked();

        /** Partitions assigned, with the group's committed offsets, before their start positions are set. */
        void assigned(Map<TopicPartition, OffsetAndMetadata> committed);
    }

    private final FlowTrigger target;
    private final Producer<String, byte[]> commands;
    private final String commandsTopic;
    private final TriggerMetrics metrics;
    private final Deserializers.Deserializer keys;
    private final Deserializers.Deserializer values;
    private final String onSerdeError;
    private final Instant savedAt;
    private final ConsumerLoop<byte[], byte[]> loop;
    private final Pattern topicPattern;
    private volatile Producer<byte[], byte[]> deadLetters;

    /** What paces a trigger: it reads nothing while {@link #full()}, and tells how many creates it sent. */
    interface Pace {
        Pace NONE = new Pace() {
            @Override
            public boolean full() {
                return false;
            }

            @Override
            public void sent(int creates) {
            }

            @Override
            public void settled(int creates) {
            }
        };

        boolean full();

        /** Creates handed to the producer. */
        void sent(int creates);

        /** Creates of {@link #sent} that Kafka now has, or will never have (their send failed). */
        void settled(int creates);
    }

    KafkaTrigger(FlowTrigger target, Producer<String, byte[]> commands, String commandsTopic, TriggerMetrics metrics,
            SchemaRegistries registries) {
        this(target, commands, commandsTopic, metrics, registries, Pace.NONE, null, null);
    }

    /**
     * @param savedAt when the flow revision that declared this trigger was saved: where a new group starts unless the
     *     trigger says otherwise ({@code since}, or {@code auto.offset.reset} in its properties); null: Kafka's reset
     * @param reach what a {@code topicPattern} subscribes as ({@link FlowKafkaReach#subscription}); null: as written
     */
    KafkaTrigger(FlowTrigger target, Producer<String, byte[]> commands, String commandsTopic, TriggerMetrics metrics,
            SchemaRegistries registries, Pace pace, Instant savedAt, FlowKafkaReach reach) {
        this.target = target;
        this.commands = commands;
        this.commandsTopic = commandsTopic;
        this.metrics = metrics;
        this.savedAt = savedAt;
        TriggerDef trigger = target.trigger();
        String pattern = trigger.text("topicPattern");
        this.topicPattern = pattern == null ? null
                : reach == null ? Pattern.compile(pattern) : reach.subscription(pattern);
        Map<?, ?> serdeProperties = trigger.properties().get("serdeProperties") instanceof Map<?, ?> given ? given : Map.of();
        this.keys = Deserializers.of(trigger.text("keyDeserializer"), serdeProperties, registries);
        this.values = Deserializers.of(trigger.text("valueDeserializer"), serdeProperties, registries);
        this.onSerdeError = trigger.properties().get("onSerdeError") instanceof Map<?, ?> onError
                && "DLQ".equalsIgnoreCase(String.valueOf(onError.get("type"))) ? String.valueOf(onError.get("topic")) : null;
        BatchKafkaTrigger.Batching batching = BatchKafkaTrigger.Batching.of(trigger);
        Mode mode = batching == null ? new RealtimeKafkaTrigger(this, pace) : new BatchKafkaTrigger(this, batching, pace);
        this.loop = new ConsumerLoop<>("trigger-" + target.key(),
                () -> new KafkaConsumer<>(consumerProperties(), new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                mode, () -> metrics.restarted(target));
    }

    void start() {
        loop.start();
    }

    /**
     * Why the trigger may not run, if it may not: a client setting, topic, group or unreadable pattern that
     * {@code reach} refuses (docs/security.md), a DLQ topic on the engine's cluster under its prefix, or an AVRO
     * schema registry that {@code registries} refuse. Checked before any client.
     */
    static Optional<String> refusal(FlowTrigger target, FlowKafkaReach reach, SchemaRegistries registries) {
        TriggerDef trigger = target.trigger();
        Map<?, ?> properties = trigger.properties().get("properties") instanceof Map<?, ?> given ? given : Map.of();
        Optional<String> refused = reach.refusedSetting(properties);
        if ("AVRO".equalsIgnoreCase(trigger.text("keyDeserializer"))
                || "AVRO".equalsIgnoreCase(trigger.text("valueDeserializer"))) {
            Map<?, ?> serde = trigger.properties().get("serdeProperties") instanceof Map<?, ?> given ? given : Map.of();
            refused = refused.or(() -> registries.refusal(serde));
        }
        Object topic = trigger.properties().get("topic");
        List<String> topics = topic instanceof Collection<?> many ? many.stream().map(String::valueOf).toList()
                : topic == null ? List.of() : List.of(topic.toString());
        for (String name : topics) {
            refused = refused.or(() -> reach.refusedTopic(properties, "topic", name));
        }
        String pattern = trigger.text("topicPattern");
        if (topic == null && pattern != null) {
            try {
                reach.subscription(pattern);
            } catch (PatternSyntaxException e) {
                refused = refused.or(() -> Optional.of("property 'topicPattern' is not a regular expression: "
                        + e.getDescription()));
            }
        }
        refused = refused.or(() -> reach.refusedGroup(properties, "groupId", trigger.text("groupId")));
        if (trigger.properties().get("onSerdeError") instanceof Map<?, ?> onError
                && "DLQ".equalsIgnoreCase(String.valueOf(onError.get("type")))) {
            refused = refused.or(() -> reach.refusedTopic(properties, "onSerdeError.topic",
                    String.valueOf(onError.get("topic"))));
        }
        return refused;
    }

    /** The trigger as its flow declared it when it started. */
    FlowTrigger target() {
        return target;
    }

    /** Counts what a round did: creates sent, unreadable records skipped or dead-lettered. */
    void read(int started, int unreadable) {
        metrics.read(target, started, unreadable, onSerdeError != null);
    }

    /** Sends the create of an execution of the flow that this trigger started with {@code variables}. */
    Future<RecordMetadata> create(String id, Map<String, Object> variables, Instant now) {
        var create = new CreateExecution(id, target.namespace(), target.flowId(), null, Map.of(), target.trigger().labels(),
                now, new ExecutionTrigger(target.trigger().id(), target.trigger().type(), variables));
        return commands.send(new ProducerRecord<>(commandsTopic, id, Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(create))));
    }

    /** Kestra's variables of a record: key and value (absent when null), topic, partition, offset, timestamp, headers. */
    Map<String, Object> variables(ConsumerRecord<byte[], byte[]> record)
            throws Deserializers.SerdeException, Deserializers.LookupException {
        var variables = new LinkedHashMap<String, Object>();
        Object key = keys.read(record.key());
        Object value = values.read(record.value());
        if (key != null) {
            variables.put("key", key);
        }
        if (value != null) {
            variables.put("value", value);
        }
        variables.put("topic", record.topic());
        variables.put("partition", record.partition());
        variables.put("offset", record.offset());
        variables.put("timestamp", Instant.ofEpochMilli(record.timestamp()).toString());
        var headers = new ArrayList<Map<String, String>>();
        for (Header header : record.headers()) {
            headers.add(Map.of(header.key(), header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8)));
        }
        variables.put("headers", headers);
        return variables;
    }

    /** An unreadable record: logged and skipped, or its dead letter's send added to {@code sends}. */
    void unreadable(ConsumerRecord<byte[], byte[]> record, Deserializers.SerdeException e,
            List<Future<RecordMetadata>> sends) {
        if (onSerdeError == null) {
            LOG.warn("Kafka trigger {} skipped the unreadable record {}-{}@{}: {}", target.key(), record.topic(),
                    record.partition(), record.offset(), e.getMessage());
            return;
        }
        var copy = new ProducerRecord<>(onSerdeError, null, record.timestamp(), record.key(), record.value(), record.headers());
        copy.headers().add(ERROR_HEADER, (record.topic() + "-" + record.partition() + "@" + record.offset() + ": "
                + e.getMessage()).getBytes(StandardCharsets.UTF_8));
        sends.add(deadLetters().send(copy));
    }

    private Producer<byte[], byte[]> deadLetters() {
        if (deadLetters == null) {
            var props = new HashMap<String, Object>(clientProperties());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "millrace-trigger-" + target.key() + "-dlq");
            deadLetters = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        }
        return deadLetters;
    }

    /**
     * Subscribes to the trigger's topics. Before partitions go to another consumer, the mode settles what it has in
     * flight ({@link Mode#revoked}). A partition the group has no offset for yet starts at its first record from
     * {@link #startsFrom()}, and that start is committed (see {@link StartPositions}).
     */
    void subscribe(KafkaConsumer<byte[], byte[]> consuming, Mode mode) {
        Object topic = target.trigger().properties().get("topic");
        ConsumerRebalanceListener listener = rebalanceListener(consuming, mode);
        if (topic instanceof Collection<?> many) {
            consuming.subscribe(many.stream().map(String::valueOf).toList(), listener);
        } else if (topic != null) {
            consuming.subscribe(List.of(topic.toString()), listener);
        } else {
            consuming.subscribe(topicPattern, listener);
        }
    }

    private ConsumerRebalanceListener rebalanceListener(KafkaConsumer<byte[], byte[]> consuming, Mode mode) {
        Instant from = startsFrom();
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                mode.revoked();
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (partitions.isEmpty()) {
                    return;
                }
                Map<TopicPartition, OffsetAndMetadata> committed = consuming.committed(Set.copyOf(partitions));
                mode.assigned(committed);
                Set<TopicPartition> fresh = StartPositions.fresh(partitions, committed);
                if (from != null && !fresh.isEmpty()) {
                    // the ends first: a partition with no record from then starts at the end it had before the
                    // question, so a record written meanwhile is read (seekToEnd would be evaluated later, past it)
                    Map<TopicPartition, Long> ends = consuming.endOffsets(fresh);
                    var times = new HashMap<TopicPartition, Long>();
                    fresh.forEach(partition -> times.put(partition, from.toEpochMilli()));
                    consuming.offsetsForTimes(times).forEach((partition, offset) ->
                            consuming.seek(partition, offset == null ? ends.get(partition) : offset.offset()));
                }
                StartPositions.keep(consuming, fresh, "Kafka trigger " + target.key());
            }
        };
    }

    /**
     * Where a new group starts reading: {@code since}, if given; else, unless the properties name Kafka's
     * {@code auto.offset.reset}, the first record written after the flow revision that declared the trigger was saved
     * (by the records' timestamps), so a record written right after a deploy is read even if the consumer joins its
     * group later; null: Kafka's reset policy.
     */
    private Instant startsFrom() {
        String since = target.trigger().text("since");
        if (since != null) {
            return OffsetDateTime.parse(since).toInstant();
        }
        return clientProperties().containsKey(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG) ? null : savedAt;
    }

    private Map<String, Object> clientProperties() {
        var props = new HashMap<String, Object>();
        if (target.trigger().properties().get("properties") instanceof Map<?, ?> given) {
            given.forEach((k, v) -> props.put(String.valueOf(k), String.valueOf(v)));
        }
        return props;
    }

    private Map<String, Object> consumerProperties() {
        var props = clientProperties();
        props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.GROUP_ID_CONFIG, target.trigger().text("groupId"));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "millrace-trigger-" + target.key());
        return props;
    }

    @Override
    public void close() {
        loop.close();
        if (deadLetters != null) {
            deadLetters.close(Duration.ofSeconds(5));
        }
    }
}
