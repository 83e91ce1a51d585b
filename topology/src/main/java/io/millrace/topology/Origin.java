package io.millrace.topology;

import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Where a record the executor handles was read: what a dead letter names. {@link #NONE} for a timer's command. */
record Origin(String topic, int partition, long offset) {
    static final Origin NONE = new Origin(null, -1, -1);

    static Origin of(RecordMetadata metadata) {
        return new Origin(metadata.topic(), metadata.partition(), metadata.offset());
    }
}
