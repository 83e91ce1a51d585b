package io.millrace.core.flow;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The trigger types the engine knows, by Kestra's names and their older names, and the properties of each. */
public final class TriggerTypes {
    public static final String KAFKA_REALTIME = "io.kestra.plugin.kafka.RealtimeTrigger";
    public static final String KAFKA_BATCH = "io.kestra.plugin.kafka.Trigger";
    public static final String WEBHOOK = "io.kestra.plugin.core.trigger.Webhook";
    public static final String SCHEDULE = "io.kestra.plugin.core.trigger.Schedule";
    public static final String FLOW = "io.kestra.plugin.core.trigger.Flow";

    /** Properties every trigger may have. */
    static final Set<String> COMMON = Set.of("id", "type", "description", "disabled", "labels", "logLevel",
            "minLogLevel", "logToFile", "workerGroup");

    /** Each type's own properties: required, then optional. */
    static final Map<String, TaskTypes.TypeSpec> SPECS = Map.of(
            KAFKA_REALTIME, new TaskTypes.TypeSpec(Set.of("properties", "groupId"), Set.of("topic", "topicPattern",
                    "serdeProperties", "keyDeserializer", "valueDeserializer", "onSerdeError", "since")),
            KAFKA_BATCH, new TaskTypes.TypeSpec(Set.of("properties", "groupId"), Set.of("topic", "topicPattern",
                    "serdeProperties", "keyDeserializer", "valueDeserializer", "onSerdeError", "since", "interval",
                    "maxRecords", "maxDuration", "pollDuration")),
            WEBHOOK, new TaskTypes.TypeSpec(Set.of("key"), Set.of("wait", "returnOutputs", "inputs")),
            SCHEDULE, new TaskTypes.TypeSpec(Set.of("cron"), Set.of("withSeconds", "timezone", "inputs", "lateMaximumDelay",
                    "recoverMissedSchedules")),
            FLOW, new TaskTypes.TypeSpec(Set.of(), Set.of("conditions", "states", "inputs")));

    /**
     * Kestra's serde types a Kafka trigger reads; PROTOBUF is not read yet. AVRO reads Confluent's wire format, with
     * the schemas of the registry its {@code serdeProperties} name.
     */
    public static final Set<String> DESERIALIZERS = Set.of("STRING", "JSON", "INTEGER", "LONG", "SHORT", "FLOAT", "DOUBLE",
            "UUID", "BYTES", "BYTE_ARRAY", "BYTE_BUFFER", "VOID", "AVRO");

    private static final Map<String, String> OLD_NAMES = Map.of(
            "io.kestra.core.models.triggers.types.Webhook", WEBHOOK,
            "io.kestra.core.models.triggers.types.Schedule", SCHEDULE,
            "io.kestra.core.models.triggers.types.Flow", FLOW);

    private TriggerTypes() {
    }

    /** The canonical name of a known type, given it or an older name of it. */
    public static Optional<String> canonical(String type) {
        if (SPECS.containsKey(type)) {
            return Optional.of(type);
        }
        return Optional.ofNullable(OLD_NAMES.get(type));
    }
}
