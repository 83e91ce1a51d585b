package io.millrace.serdes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Avro single-object encoding (a marker, the writer schema's fingerprint, then the binary body).
 * The reader knows the current schema and every earlier version listed in
 * {@code avro-history/index.txt}, so records written by older versions still decode.
 */
public final class AvroSerde<T extends SpecificRecord> implements Serde<T> {
    private static final SchemaStore.Cache HISTORY = loadHistory();

    private final BinaryMessageEncoder<T> encoder;
    private final BinaryMessageDecoder<T> decoder;
    private final String name;

    public AvroSerde(Schema schema) {
        this.name = schema.getName();
        // no copy inside the encoder: encode() copies its per-thread buffer into the record's bytes right away
        this.encoder = new BinaryMessageEncoder<>(SpecificData.get(), schema, false);
        this.decoder = new BinaryMessageDecoder<>(SpecificData.get(), schema, HISTORY);
    }

    /**
     * A decoder of records written with {@code current} (or an earlier version in the history) that reads only the
     * fields of {@code projection}, a schema of the same name with fewer fields: Avro skips the others, which costs
     * less than building them.
     */
    public static BinaryMessageDecoder<GenericRecord> projection(Schema current, Schema projection) {
        var decoder = new BinaryMessageDecoder<GenericRecord>(GenericData.get(), projection, HISTORY);
        decoder.addSchema(current);
        return decoder;
    }

    public byte[] encode(T value) {
        try {
            ByteBuffer buffer = encoder.encode(value);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (IOException e) {
            throw new SerializationException("Unable to encode a " + name, e);
        }
    }

    public T decode(byte[] bytes) {
        try {
            return decoder.decode(bytes);
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Unable to decode a " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> value == null ? null : encode(value);
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> bytes == null ? null : decode(bytes);
    }

    private static SchemaStore.Cache loadHistory() {
        var cache = new SchemaStore.Cache();
        try (InputStream index = AvroSerde.class.getResourceAsStream("/avro-history/index.txt")) {
            if (index == null) {
                return cache;
            }
            for (String name : new String(index.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\\R")) {
                if (name.isBlank() || name.startsWith("#")) {
                    continue;
                }
                try (InputStream schema = AvroSerde.class.getResourceAsStream("/avro-history/" + name.trim())) {
                    cache.addSchema(new Schema.Parser().parse(schema));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Unable to read the Avro schema history", e);
        }
        return cache;
    }
}
