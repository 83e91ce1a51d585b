package io.millrace.serdes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
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
    /** Avro's single-object encoding begins with these two bytes, then the writer schema's fingerprint. */
    private static final byte[] MARKER = {(byte) 0xC3, 0x01};
    private static final int HEADER_LENGTH = MARKER.length + Long.BYTES;

    private final BinaryMessageEncoder<T> encoder;
    /** The single-object header of this schema: the marker, then the fingerprint. */
    private final byte[] header;
    /** The body's writer, for {@link #body}. */
    private final DatumWriter<Object> writer;
    /** One writer a field, for {@link #encode(SpecificRecord, SpecificRecord, byte[])}. */
    private final List<DatumWriter<Object>> fieldWriters;
    private final BinaryMessageDecoder<T> decoder;
    private final String name;
    private final String fullName;
    private final long fingerprint;

    public AvroSerde(Schema schema) {
        this.name = schema.getName();
        this.fullName = schema.getFullName();
        this.fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        // no copy inside the encoder: encode() copies its per-thread buffer into the record's bytes right away
        this.encoder = new BinaryMessageEncoder<>(SpecificData.get(), schema, false);
        this.decoder = new BinaryMessageDecoder<>(SpecificData.get(), schema, HISTORY);
        this.header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN).put(MARKER).putLong(fingerprint)
                .array();
        SpecificData model = SpecificData.getForSchema(schema); // with the record's logical type conversions
        this.writer = writer(model, schema);
        this.fieldWriters = schema.getType() != Schema.Type.RECORD ? List.of() : schema.getFields().stream()
                .map(field -> writer(model, field.schema())).toList();
    }

    @SuppressWarnings("unchecked")
    private static DatumWriter<Object> writer(SpecificData model, Schema schema) {
        return (DatumWriter<Object>) model.createDatumWriter(schema);
    }

    /**
     * A record's Avro binary body, no header: what a bigger record that holds it as its first field writes for it, so
     * that two records around the same one encode it once (see {@link #encode(SpecificRecord, SpecificRecord,
     * byte[])}).
     */
    public byte[] body(T value) {
        var out = new ByteArrayOutputStream(512);
        try {
            writer.write(value, EncoderFactory.get().directBinaryEncoder(out, null));
        } catch (IOException e) {
            throw new SerializationException("Unable to encode a " + name, e);
        }
        return out.toByteArray();
    }

    /**
     * As {@link #encode(SpecificRecord)}, with {@code firstBody} written for the first field, whose value must be
     * {@code first} (the {@link #body} of it, by its own serde); any other first field is encoded as usual. The bytes
     * are the same.
     */
    public byte[] encode(T value, SpecificRecord first, byte[] firstBody) {
        if (fieldWriters.isEmpty() || value.get(0) != first) {
            return encode(value);
        }
        var out = new ByteArrayOutputStream(HEADER_LENGTH + firstBody.length + 64);
        out.writeBytes(header);
        out.writeBytes(firstBody);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        try {
            for (int field = 1; field < fieldWriters.size(); field++) {
                fieldWriters.get(field).write(value.get(field), encoder);
            }
        } catch (IOException e) {
            throw new SerializationException("Unable to encode a " + name, e);
        }
        return out.toByteArray();
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

    /**
     * Whether {@code bytes} begin as a record of this type does: the single-object marker, then the fingerprint of this
     * schema or of an earlier version of it. Reads ten bytes, not the body: a cheap check for bytes that are not such a
     * record at all, where {@link #decode} is too dear (a body cut short still passes).
     */
    public boolean hasHeader(byte[] bytes) {
        if (bytes == null || bytes.length < HEADER_LENGTH || bytes[0] != MARKER[0] || bytes[1] != MARKER[1]) {
            return false;
        }
        long written = ByteBuffer.wrap(bytes, MARKER.length, Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (written == fingerprint) {
            return true;
        }
        Schema earlier = HISTORY.findByFingerprint(written);
        return earlier != null && earlier.getFullName().equals(fullName);
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
