package io.millrace.worker.task;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.millrace.serdes.Json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Kestra's serde types for what a Produce task writes: a row's rendered key or value to record bytes, as Kafka's own
 * serializers of that type would write them (numbers big-endian, UUIDs and strings as UTF-8 text, JSON as Jackson
 * writes it). Being lenient where Kestra is strict costs nothing: a number may come as text, since a rendered
 * template always is text. Null is written as null (no bytes), whatever the type.
 */
final class KafkaSerializers {

    /** Writes one value; an {@link IllegalArgumentException} says why a value does not fit the type. */
    @FunctionalInterface
    interface KafkaSerializer {
        byte[] write(Object value);
    }

    private static final Map<String, KafkaSerializer> BY_TYPE = byType();

    /** Types of Kestra that need a schema registry and a schema, which this engine does not carry yet. */
    private static final Set<String> NOT_YET = Set.of("AVRO", "PROTOBUF");

    private KafkaSerializers() {
    }

    private static Map<String, KafkaSerializer> byType() {
        Map<String, KafkaSerializer> types = new LinkedHashMap<>();
        types.put("STRING", KafkaSerializers::string);
        types.put("JSON", KafkaSerializers::json);
        types.put("INTEGER", value -> ByteBuffer.allocate(4).putInt(whole(value, Integer.MIN_VALUE, Integer.MAX_VALUE).intValue()).array());
        types.put("LONG", value -> ByteBuffer.allocate(8).putLong(whole(value, Long.MIN_VALUE, Long.MAX_VALUE).longValue()).array());
        types.put("SHORT", value -> ByteBuffer.allocate(2).putShort(whole(value, Short.MIN_VALUE, Short.MAX_VALUE).shortValue()).array());
        types.put("FLOAT", value -> ByteBuffer.allocate(4).putFloat(decimal(value).floatValue()).array());
        types.put("DOUBLE", value -> ByteBuffer.allocate(8).putDouble(decimal(value).doubleValue()).array());
        types.put("UUID", KafkaSerializers::uuid);
        types.put("BYTES", KafkaSerializers::base64);
        types.put("BYTE_ARRAY", KafkaSerializers::base64);
        types.put("BYTE_BUFFER", KafkaSerializers::base64);
        types.put("VOID", value -> {
            throw new IllegalArgumentException("expected no value for VOID, got " + shown(value));
        });
        return Map.copyOf(types);
    }

    /** The serializer of the serde type named by the property (rendered; any case), STRING when absent. */
    static KafkaSerializer of(TaskProperties props, String property) throws TaskException {
        String type = props.string(property);
        String name = type == null ? "STRING" : type.trim().toUpperCase(Locale.ROOT);
        if (NOT_YET.contains(name)) {
            throw props.problem("property '" + property + "': " + name + " is not supported yet; supported: " + supported());
        }
        KafkaSerializer serializer = BY_TYPE.get(name);
        if (serializer == null) {
            throw props.problem("property '" + property + "' names no serde type: '" + type + "'; supported: " + supported());
        }
        return value -> value == null ? null : serializer.write(value);
    }

    static String supported() {
        return String.join(", ", new TreeSet<>(BY_TYPE.keySet()));
    }

    private static byte[] string(Object value) {
        if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
            throw new IllegalArgumentException("expected text for STRING, got " + shown(value)
                    + "; the JSON serde writes objects and lists");
        }
        return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] json(Object value) {
        try {
            return Json.MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON-compatible: " + e.getOriginalMessage(), e);
        }
    }

    private static BigInteger whole(Object value, long min, long max) {
        BigDecimal number = decimal(value);
        try {
            BigInteger whole = number.toBigIntegerExact();
            if (whole.compareTo(BigInteger.valueOf(min)) < 0 || whole.compareTo(BigInteger.valueOf(max)) > 0) {
                throw new IllegalArgumentException("expected a whole number from " + min + " to " + max + ", got " + shown(value));
            }
            return whole;
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("expected a whole number, got " + shown(value), e);
        }
    }

    private static BigDecimal decimal(Object value) {
        if (value instanceof Number || value instanceof String) {
            try {
                return new BigDecimal(String.valueOf(value).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a number, got " + shown(value), e);
            }
        }
        throw new IllegalArgumentException("expected a number, got " + shown(value));
    }

    private static byte[] uuid(Object value) {
        try {
            return UUID.fromString(String.valueOf(value).trim()).toString().getBytes(StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected a UUID, got " + shown(value), e);
        }
    }

    private static byte[] base64(Object value) {
        if (!(value instanceof String text)) {
            throw new IllegalArgumentException("expected base64 text, got " + shown(value));
        }
        try {
            return Base64.getDecoder().decode(text.replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected base64 text, got " + shown(value), e);
        }
    }

    private static String shown(Object value) {
        if (value instanceof Map<?, ?>) {
            return "an object";
        }
        if (value instanceof Collection<?>) {
            return "a list";
        }
        String text = String.valueOf(value);
        return "'" + (text.length() > 64 ? text.substring(0, 64) + "…" : text) + "'";
    }
}
