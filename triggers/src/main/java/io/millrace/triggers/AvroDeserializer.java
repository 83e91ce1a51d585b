package io.millrace.triggers;

import io.millrace.triggers.Deserializers.LookupException;
import io.millrace.triggers.Deserializers.SerdeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DecoderFactory;

/**
 * AVRO in Confluent's wire format: byte 0 is the magic byte 0, bytes 1 to 4 the writer schema's id in the schema
 * registry (a big-endian int), the rest one datum in Avro's binary encoding. The datum is read with its writer schema
 * and given as plain values ({@link AvroValues}). Like Confluent's deserializer, bytes after the datum are ignored.
 */
final class AvroDeserializer implements Deserializers.Deserializer {
    static final byte MAGIC = 0;
    static final int HEADER = 5;

    private final SchemaRegistries registries;
    private final SchemaRegistries.Registry registry;

    AvroDeserializer(SchemaRegistries registries, SchemaRegistries.Registry registry) {
        this.registries = registries;
        this.registry = registry;
    }

    @Override
    public Object read(byte[] bytes) throws SerdeException, LookupException {
        if (bytes == null) {
            return null;
        }
        if (bytes.length < HEADER || bytes[0] != MAGIC) {
            throw new SerdeException("Expected Confluent's Avro wire format (magic byte 0, a 4-byte schema id, the datum), "
                    + "but got " + (bytes.length < HEADER ? bytes.length + " bytes" : "magic byte " + bytes[0]));
        }
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        Schema schema = registries.schema(registry, id);
        try {
            var decoder = DecoderFactory.get().binaryDecoder(bytes, HEADER, bytes.length - HEADER, null);
            return AvroValues.plain(new GenericDatumReader<>(schema).read(null, decoder), schema);
        } catch (IOException | RuntimeException e) {
            throw new SerdeException("Not Avro of schema id " + id + " (" + schema.getFullName() + "): " + e);
        }
    }
}
