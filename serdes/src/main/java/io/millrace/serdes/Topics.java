package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunSnapshot;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** Every topic of the engine: its name (under the configured prefix), serdes and cleanup policy. */
public final class Topics {
    /** A topic's name bundled with its key and value serdes and its topic configs. */
    public record Topic<V>(String name, Serde<String> keySerde, Serde<V> valueSerde, Map<String, String> configs) {
    }

    private static final Map<String, String> DELETE = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
    private static final Map<String, String> COMPACT = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);

    public static final AvroSerde<CommandRecord> COMMAND_SERDE = new AvroSerde<>(CommandRecord.getClassSchema());
    public static final AvroSerde<TaskResultRecord> RESULT_SERDE = new AvroSerde<>(TaskResultRecord.getClassSchema());
    public static final AvroSerde<WorkerTaskRecord> TASK_SERDE = new AvroSerde<>(WorkerTaskRecord.getClassSchema());
    public static final AvroSerde<EventRecord> EVENT_SERDE = new AvroSerde<>(EventRecord.getClassSchema());
    public static final AvroSerde<ExecutionSnapshot> SNAPSHOT_SERDE = new AvroSerde<>(ExecutionSnapshot.getClassSchema());
    public static final AvroSerde<TaskRunSnapshot> RUN_SNAPSHOT_SERDE = new AvroSerde<>(TaskRunSnapshot.getClassSchema());
    public static final AvroSerde<FlowRecord> FLOW_SERDE = new AvroSerde<>(FlowRecord.getClassSchema());
    public static final AvroSerde<LogRecord> LOG_SERDE = new AvroSerde<>(LogRecord.getClassSchema());
    public static final AvroSerde<DeadLetterRecord> DEAD_LETTER_SERDE = new AvroSerde<>(DeadLetterRecord.getClassSchema());

    private final String prefix;

    public Topics(String prefix) {
        this.prefix = prefix;
    }

    public static Topics of(MillraceConfig config) {
        return new Topics(config.topicPrefix());
    }

    /** The executor's Kafka Streams application id, which is also its consumer group. */
    public static String executorApplicationId(MillraceConfig config) {
        return config.topicPrefix() + "executor";
    }

    /**
     * The consumer group whose committed offsets on {@code commands} say how far the executor has started what it read:
     * its lag counts the creates that wait for a place as well as those unread ({@link StartedOffsets}).
     */
    public static String executorStartedGroup(MillraceConfig config) {
        return executorApplicationId(config) + "-started";
    }

    /** Flow revisions, keyed {@code namespace/id@revision}. */
    public Topic<FlowRecord> flows() {
        return topic("flows", FLOW_SERDE, COMPACT);
    }

    public Topic<CommandRecord> commands() {
        return topic("commands", COMMAND_SERDE, DELETE);
    }

    public Topic<TaskResultRecord> results() {
        return topic("results", RESULT_SERDE, DELETE);
    }

    public Topic<WorkerTaskRecord> tasks(String workerGroup) {
        return topic("tasks." + workerGroup, TASK_SERDE, DELETE);
    }

    public Topic<EventRecord> events() {
        return topic("events", EVENT_SERDE, DELETE);
    }

    /**
     * The latest snapshot of each execution, keyed by execution id, and of each of its task runs ({@link SnapshotKeys}):
     * a value under a run key is a {@link TaskRunSnapshot}, decoded with {@link #RUN_SNAPSHOT_SERDE}.
     */
    public Topic<ExecutionSnapshot> executions() {
        return topic("executions", SNAPSHOT_SERDE, COMPACT);
    }

    public Topic<DeadLetterRecord> deadLetters() {
        return topic("dlq", DEAD_LETTER_SERDE, DELETE);
    }

    /** Task log lines, keyed by execution id; kept as long as a finished execution (the gateway serves them). */
    public Topic<LogRecord> logs() {
        return topic("logs", LOG_SERDE, DELETE);
    }

    /**
     * Kills of executions ({@code KillExecution} commands, keyed by execution id) that every worker reads whole, apart
     * from its tasks: each interrupts the attempts of a killed execution that it runs, however busy its slots are.
     */
    public Topic<CommandRecord> kills() {
        return topic("kills", COMMAND_SERDE, DELETE);
    }

    /**
     * The audit trail: one JSON record for each change made through the API (deploy, delete, start, kill, pause,
     * resume, restart, replay) and each read of the access file, keyed by principal; the gateway writes and reads it.
     */
    public Topic<byte[]> audit() {
        return topic("audit", Serdes.ByteArray(), DELETE);
    }

    /** The topics the executor reads and writes for a set of worker groups. */
    public List<Topic<?>> executorTopics(List<String> workerGroups) {
        var all = new java.util.ArrayList<Topic<?>>(List.of(flows(), commands(), results(), events(), executions(), logs(),
                deadLetters(), kills()));
        workerGroups.forEach(g -> all.add(tasks(g)));
        return all;
    }

    private <V> Topic<V> topic(String name, Serde<V> serde, Map<String, String> configs) {
        return new Topic<>(prefix + name, Serdes.String(), serde, configs);
    }
}
