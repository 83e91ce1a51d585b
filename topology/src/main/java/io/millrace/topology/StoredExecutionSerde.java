package io.millrace.topology;

import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.StoredExecution;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The executions store's serde: Avro, except for a {@link Prepared} value, whose bytes were made with the body of its
 * execution record that the step's snapshot encoded already ({@link StoreBackedState#executionBody}), so a step encodes
 * the execution once, not twice.
 */
final class StoredExecutionSerde implements Serde<StoredExecution> {
    static final AvroSerde<StoredExecution> AVRO = new AvroSerde<>(StoredExecution.getClassSchema());

    /** A stored execution and its bytes, as {@link #AVRO} would encode it. */
    static final class Prepared extends StoredExecution {
        private final byte[] bytes;

        /** @param executionBody the Avro body of {@code execution} */
        Prepared(ExecutionRecord execution, byte[] executionBody, Integer taskRunCount, long version,
                Map<String, String> outputs) {
            super(execution, taskRunCount, version, outputs);
            this.bytes = AVRO.encode(this, execution, executionBody);
        }
    }

    @Override
    public Serializer<StoredExecution> serializer() {
        return (topic, value) -> value instanceof Prepared prepared ? prepared.bytes
                : value == null ? null : AVRO.encode(value);
    }

    @Override
    public Deserializer<StoredExecution> deserializer() {
        return AVRO.deserializer();
    }
}
