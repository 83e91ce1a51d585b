package io.millrace.triggers;

import io.millrace.config.MillraceConfig;
import io.millrace.core.cache.LruCache;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.ScheduleSpec;
import io.millrace.core.flow.TriggerDef;
import io.millrace.core.flow.TriggerTypes;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code Schedule} triggers as a Kafka Streams application of the triggers role ({@code <prefix>triggers}): the flows
 * topic, keyed again by flow, feeds a processor that keeps each enabled Schedule trigger of each flow's latest revision
 * in a changelogged store with its next date; a wall-clock punctuation every second sends a create command for each date
 * that came. The store and the commands go out in one transaction under exactly-once, and each date's execution id is
 * derived from the flow, the trigger and the date, so under at-least-once a date sent twice is still one execution.
 * Kafka spreads the flows' partitions, so each schedule, over the instances; the schedule's state lives in Kafka, so a
 * restart, a crash or a move to another instance neither repeats nor loses a date.
 */
final class Schedules {
    static final String STORE = "triggers-schedules";
    /** A date older than this when it is due was missed (no instance ran then): {@code recoverMissedSchedules} decides. */
    static final Duration MISSED_AFTER = Duration.ofMinutes(1);
    /** The most missed dates one schedule sends in one punctuation under ALL. */
    static final int MAX_CATCH_UP = 100;
    private static final Logger LOG = LoggerFactory.getLogger(Schedules.class);

    private Schedules() {
    }

    /**
     * One schedule of one flow: its trigger (as JSON, so a change is seen), the revision it is from, its next date.
     * Under the flow's own key, with no trigger and no next date, the latest revision of the flow read.
     */
    record State(String namespace, String flowId, int revision, String trigger, long next) {
    }

    static Topology topology(Topics topics) {
        var builder = new StreamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.String(),
                Serdes.ByteArray()));
        builder.stream(topics.flows().name(), Consumed.with(Serdes.String(), Topics.FLOW_SERDE).withName("flows"))
                .filter((key, flow) -> flow != null, Named.as("flows-not-deleted"))
                .selectKey((key, flow) -> Flow.key(flow.getNamespace(), flow.getId()), Named.as("flows-by-flow-key"))
                .repartition(Repartitioned.with(Serdes.String(), Topics.FLOW_SERDE).withName("flows-by-flow"))
                .process(ScheduleProcessor::new, Named.as("schedules"), STORE)
                .to(topics.commands().name(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("commands"));
        return builder.build();
    }

    static Properties properties(MillraceConfig config) {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.topicPrefix() + "triggers");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, config.processingGuarantee());
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().resolve("triggers").toString());
        props.putAll(TopicAdmin.internalTopics(config));
        props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        // a flow record that does not decode is skipped, logged and counted (kafka_stream_task_dropped_records_total):
        // failing on it would stop the schedules' thread on every restart
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        props.putAll(config.kafka());
        return props;
    }

    static final class ScheduleProcessor implements Processor<String, FlowRecord, String, byte[]> {
        private final LruCache<String, ScheduleSpec> specs = new LruCache<>(10_000);
        private ProcessorContext<String, byte[]> context;
        private KeyValueStore<String, byte[]> store;

        @Override
        public void init(ProcessorContext<String, byte[]> context) {
            this.context = context;
            this.store = context.getStateStore(STORE);
            context.schedule(Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME, this::tick);
        }

        /** A flow revision: its schedules replace the flow's earlier ones; an older revision read again changes nothing. */
        @Override
        public void process(Record<String, FlowRecord> record) {
            FlowRecord value = record.value();
            String prefix = record.key() + "/";
            var current = new LinkedHashMap<String, State>();
            try (KeyValueIterator<String, byte[]> stored = store.prefixScan(prefix, Serdes.String().serializer())) {
                stored.forEachRemaining(kv -> current.put(kv.key, read(kv.value)));
            }
            // the latest revision read, kept even when it has no schedule, so that an older one read again is ignored
            byte[] latest = store.get(record.key());
            if (latest != null && read(latest).revision() > value.getRevision()) {
                return;
            }
            write(record.key(), new State(value.getNamespace(), value.getId(), value.getRevision(), null, Long.MAX_VALUE));
            var wanted = new LinkedHashMap<String, TriggerDef>();
            try {
                Flow flow = FlowMapper.fromRecord(value);
                if (!flow.disabled()) {
                    flow.triggers().stream().filter(t -> !t.disabled() && t.type().equals(TriggerTypes.SCHEDULE))
                            .forEach(t -> wanted.put(prefix + t.id(), t));
                }
            } catch (RuntimeException e) {
                LOG.warn("Flow {} revision {} does not parse; its schedules stop: {}", record.key(), value.getRevision(),
                        e.getMessage());
            }
            Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
            current.keySet().stream().filter(key -> !wanted.containsKey(key)).forEach(store::delete);
            wanted.forEach((key, trigger) -> {
                String definition = Json.write(Map.of("id", trigger.id(), "labels", trigger.labels(),
                        "properties", trigger.properties()));
                State known = current.get(key);
                long next = known != null && known.trigger().equals(definition) ? known.next()
                        // a new or changed schedule starts at its next date, as in Kestra: nothing is caught up
                        : spec(definition, trigger).next(now).map(Instant::toEpochMilli).orElse(Long.MAX_VALUE);
                write(key, new State(value.getNamespace(), value.getId(), value.getRevision(), definition, next));
            });
        }

        /** Sends the executions of the dates that came, as each schedule's {@code recoverMissedSchedules} says. */
        private void tick(long nowMillis) {
            Instant now = Instant.ofEpochMilli(nowMillis);
            var due = new ArrayList<Map.Entry<String, State>>();
            try (KeyValueIterator<String, byte[]> all = store.all()) {
                all.forEachRemaining(kv -> {
                    State state = read(kv.value);
                    if (state.next() <= nowMillis) {
                        due.add(Map.entry(kv.key, state));
                    }
                });
            }
            for (var entry : due) {
                State state = entry.getValue();
                long next;
                try {
                    TriggerDef trigger = trigger(state);
                    ScheduleSpec spec = spec(state.trigger(), trigger);
                    List<Instant> dates = dates(spec, Instant.ofEpochMilli(state.next()), now);
                    dates.forEach(date -> send(state, trigger, spec, date, now));
                    // every date until now was sent or dropped, but for a catch-up longer than one punctuation sends
                    Instant from = dates.size() == MAX_CATCH_UP ? dates.getLast() : now;
                    next = spec.next(from).map(Instant::toEpochMilli).orElse(Long.MAX_VALUE);
                } catch (RuntimeException e) {
                    // one broken schedule must not stop the others: it waits for its flow's next revision
                    LOG.error("Schedule {} failed and stops until its flow changes", entry.getKey(), e);
                    next = Long.MAX_VALUE;
                }
                write(entry.getKey(), new State(state.namespace(), state.flowId(), state.revision(), state.trigger(), next));
            }
        }

        /**
         * The dates to start now, from {@code first} (the schedule's next date, come) to {@code now}: none older than
         * {@code lateMaximumDelay}; and if the first is older than {@link #MISSED_AFTER}, it was missed (no instance
         * ran then): ALL starts every missed date (at most {@link #MAX_CATCH_UP} a punctuation), LAST only the latest,
         * NONE none but a date that has just come.
         */
        static List<Instant> dates(ScheduleSpec spec, Instant first, Instant now) {
            Instant start = first;
            if (spec.lateMaximumDelay() != null && first.plus(spec.lateMaximumDelay()).isBefore(now)) {
                start = spec.next(now.minus(spec.lateMaximumDelay()).minusMillis(1)).orElse(null);
            }
            var dates = new ArrayList<Instant>();
            for (Instant date = start; date != null && !date.isAfter(now) && dates.size() < MAX_CATCH_UP;
                    date = spec.next(date).orElse(null)) {
                dates.add(date);
            }
            if (dates.isEmpty() || !dates.getFirst().isBefore(now.minus(MISSED_AFTER)) || spec.recover() == ScheduleSpec.Recover.ALL) {
                return dates;
            }
            Instant latest = spec.previous(now.plusMillis(1)).orElseThrow();
            return spec.recover() == ScheduleSpec.Recover.LAST || !latest.isBefore(now.minus(MISSED_AFTER))
                    ? List.of(latest) : List.of();
        }

        private void send(State state, TriggerDef trigger, ScheduleSpec spec, Instant date, Instant now) {
            String id = TriggerIds.of("schedule", state.namespace(), state.flowId(), trigger.id(),
                    Long.toString(date.toEpochMilli()));
            var create = new CreateExecution(id, state.namespace(), state.flowId(), null, spec.inputs(), trigger.labels(),
                    now, new ExecutionTrigger(trigger.id(), TriggerTypes.SCHEDULE, spec.variables(date)));
            context.forward(new Record<>(id, Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(create)), now.toEpochMilli()));
        }

        private ScheduleSpec spec(String definition, TriggerDef trigger) {
            return specs.computeIfAbsent(definition, d -> ScheduleSpec.of(trigger));
        }

        @SuppressWarnings("unchecked")
        private static TriggerDef trigger(State state) {
            Map<String, Object> definition = Json.readMap(state.trigger());
            return new TriggerDef((String) definition.get("id"), TriggerTypes.SCHEDULE, false,
                    (Map<String, String>) definition.get("labels"), (Map<String, Object>) definition.get("properties"));
        }

        private void write(String key, State state) {
            store.put(key, Json.write(state).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        private static State read(byte[] bytes) {
            try {
                return Json.MAPPER.readValue(bytes, State.class);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("Expected a schedule's state in the store, but it does not read", e);
            }
        }
    }
}
