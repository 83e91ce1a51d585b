package io.millrace.triggers;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.millrace.serdes.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Kestra's serde types for what a Kafka trigger reads: a record's key or value bytes to the value its execution sees
 * as {@code trigger.key} / {@code trigger.value}. Numbers are Kafka's big-endian encodings, JSON becomes maps, lists
 * and scalars, bytes become base64 text, AVRO is Confluent's wire format read with the writer schema from a schema
 * registry ({@link AvroDeserializer}). Bytes that do not fit their type throw {@link SerdeException}; a lookup a type
 * needs that fails for reasons outside the record (a schema registry down) throws {@link LookupException}.
 */
final class Deserializers {
    private Deserializers() {
    }

    /** A record's bytes could not be read as the trigger's serde type says. */
    static final class SerdeException extends Exception {
        SerdeException(String message) {
            super(message);
        }
    }

    /**
     * What a deserializer needed to read a record could not be looked up (a schema registry unreachable, or answering
     * with an error): not the record's fault, so it is not a serde error; the trigger reads the record again later.
     */
    static final class LookupException extends Exception {
        LookupException(String message) {
            super(message);
        }
    }

    @FunctionalInterface
    interface Deserializer {
        Object read(byte[] bytes) throws SerdeException, LookupException;
    }

    /** The deserializer of a serde type; AVRO reads the schemas of the registry {@code serdeProperties} name. */
    static Deserializer of(String type, Map<?, ?> serdeProperties, SchemaRegistries registries) {
        String name = type == null ? "STRING" : type.toUpperCase(Locale.ROOT);
        return switch (name) {
            case "STRING" -> bytes -> bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
            case "JSON" -> Deserializers::json;
            case "INTEGER" -> bytes -> bytes == null ? null : fixed(bytes, 4, name).getInt();
            case "LONG" -> bytes -> bytes == null ? null : fixed(bytes, 8, name).getLong();
            case "SHORT" -> bytes -> bytes == null ? null : (int) fixed(bytes, 2, name).getShort();
            case "FLOAT" -> bytes -> bytes == null ? null : (double) fixed(bytes, 4, name).getFloat();
            case "DOUBLE" -> bytes -> bytes == null ? null : fixed(bytes, 8, name).getDouble();
            case "UUID" -> Deserializers::uuid;
            case "BYTES", "BYTE_ARRAY", "BYTE_BUFFER" -> bytes -> bytes == null ? null : Base64.getEncoder().encodeToString(bytes);
            case "AVRO" -> new AvroDeserializer(registries, SchemaRegistries.Registry.of(serdeProperties));
            case "VOID" -> bytes -> {
                if (bytes != null) {
                    throw new SerdeException("Expected no data for VOID, but got " + bytes.length + " bytes");
                }
                return null;
            };
            default -> throw new IllegalArgumentException("Unknown serde type '" + type + "'");
        };
    }

    private static Object json(byte[] bytes) throws SerdeException {
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        try {
            return Json.MAPPER.readValue(bytes, Object.class);
        } catch (JsonProcessingException e) {
            throw new SerdeException("Not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new SerdeException("Not JSON: " + e.getMessage());
        }
    }

    private static Object uuid(byte[] bytes) throws SerdeException {
        if (bytes == null) {
            return null;
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        try {
            return UUID.fromString(text).toString();
        } catch (IllegalArgumentException e) {
            throw new SerdeException("Not a UUID: '" + (text.length() > 64 ? text.substring(0, 64) + "…" : text) + "'");
        }
    }

    private static ByteBuffer fixed(byte[] bytes, int size, String type) throws SerdeException {
        if (bytes.length != size) {
            throw new SerdeException("Expected " + size + " bytes for " + type + ", but got " + bytes.length);
        }
        return ByteBuffer.wrap(bytes);
    }
}
