package io.millrace.topology;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A record on its way out of the executor, encoded once where it is made, so that its size is known before anything
 * of its decision is stored or sent (see {@link Effects}); the sinks send these bytes as they are.
 *
 * @param record the record, for whoever routes it (a worker task's group) and for tests
 */
record Encoded(SpecificRecord record, byte[] bytes) {

    /** The sinks' value serializer: the bytes already encoded, or a tombstone. */
    static final Serializer<Object> SERIALIZER = (topic, value) -> value == null ? null : ((Encoded) value).bytes();
}
