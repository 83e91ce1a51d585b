package io.millrace.triggers;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;

/**
 * An Avro datum, as {@code GenericDatumReader} gives it, to the plain values a trigger's variables hold, as JSON would
 * give them: a record becomes a map in field order, an array a list, a map a map with string keys, strings and enum
 * symbols strings, bytes and fixed base64 text, a union the value of its branch, a float the double it reads as.
 * Logical types become what they mean ({@link #LOGICAL}); one this engine does not know stays its underlying value.
 */
final class AvroValues {
    private static final Conversions.DecimalConversion DECIMAL = new Conversions.DecimalConversion();
    private static final Conversions.BigDecimalConversion BIG_DECIMAL = new Conversions.BigDecimalConversion();

    /** By logical type name: its underlying value to what it means (BigDecimal, ISO-8601 text, UUID text). */
    private static final Map<String, BiFunction<Object, Schema, Object>> LOGICAL = Map.ofEntries(
            Map.entry("decimal", (v, s) -> v instanceof GenericFixed fixed
                    ? DECIMAL.fromFixed(fixed, s, s.getLogicalType())
                    : DECIMAL.fromBytes(((ByteBuffer) v).duplicate(), s, s.getLogicalType())),
            Map.entry("big-decimal", (v, s) -> BIG_DECIMAL.fromBytes(((ByteBuffer) v).duplicate(), s, s.getLogicalType())),
            Map.entry("uuid", (v, s) -> v instanceof GenericFixed fixed ? uuid(fixed.bytes()) : v.toString()),
            Map.entry("date", (v, s) -> LocalDate.ofEpochDay((Integer) v).toString()),
            Map.entry("time-millis", (v, s) -> LocalTime.ofNanoOfDay((Integer) v * 1_000_000L).toString()),
            Map.entry("time-micros", (v, s) -> LocalTime.ofNanoOfDay((Long) v * 1_000L).toString()),
            Map.entry("timestamp-millis", (v, s) -> Instant.ofEpochMilli((Long) v).toString()),
            Map.entry("timestamp-micros", (v, s) -> Instant.EPOCH.plus((Long) v, ChronoUnit.MICROS).toString()),
            Map.entry("timestamp-nanos", (v, s) -> Instant.EPOCH.plusNanos((Long) v).toString()),
            Map.entry("local-timestamp-millis", (v, s) -> local(Instant.ofEpochMilli((Long) v))),
            Map.entry("local-timestamp-micros", (v, s) -> local(Instant.EPOCH.plus((Long) v, ChronoUnit.MICROS))),
            Map.entry("local-timestamp-nanos", (v, s) -> local(Instant.EPOCH.plusNanos((Long) v))));

    private AvroValues() {
    }

    /** The plain value of {@code datum}, read with {@code schema}. */
    static Object plain(Object datum, Schema schema) {
        if (datum == null) {
            return null;
        }
        LogicalType logical = schema.getLogicalType();
        if (logical != null && LOGICAL.containsKey(logical.getName())) {
            return LOGICAL.get(logical.getName()).apply(datum, schema);
        }
        return switch (schema.getType()) {
            case RECORD -> record((IndexedRecord) datum, schema);
            case UNION -> plain(datum, schema.getTypes().get(GenericData.get().resolveUnion(schema, datum)));
            case ARRAY -> list((Collection<?>) datum, schema.getElementType());
            case MAP -> map((Map<?, ?>) datum, schema.getValueType());
            case STRING, ENUM -> datum.toString();
            case BYTES -> base64(((ByteBuffer) datum).duplicate());
            case FIXED -> base64(ByteBuffer.wrap(((GenericFixed) datum).bytes()));
            // the shortest text of the float: 0.1f reads 0.1, not 0.10000000149011612
            case FLOAT -> Double.valueOf(datum.toString());
            case INT, LONG, DOUBLE, BOOLEAN -> datum;
            case NULL -> null;
        };
    }

    private static Map<String, Object> record(IndexedRecord record, Schema schema) {
        var fields = new LinkedHashMap<String, Object>();
        for (Schema.Field field : schema.getFields()) {
            fields.put(field.name(), plain(record.get(field.pos()), field.schema()));
        }
        return fields;
    }

    private static List<Object> list(Collection<?> items, Schema itemSchema) {
        var list = new ArrayList<>(items.size());
        for (Object item : items) {
            list.add(plain(item, itemSchema));
        }
        return list;
    }

    private static Map<String, Object> map(Map<?, ?> entries, Schema valueSchema) {
        var map = new LinkedHashMap<String, Object>();
        entries.forEach((key, value) -> map.put(key.toString(), plain(value, valueSchema)));
        return map;
    }

    private static String base64(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static String uuid(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new UUID(buffer.getLong(), buffer.getLong()).toString();
    }

    private static String local(Instant instant) {
        return LocalDateTime.ofInstant(instant, ZoneOffset.UTC).toString();
    }
}
