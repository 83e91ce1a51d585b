package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/** Avro data, written and read back as a trigger reads it, to the plain values of a trigger's variables. */
class AvroValuesTest {
    private static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
              {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
                {"name": "city", "type": "string"}, {"name": "zip", "type": ["null", "int"]}]}},
              {"name": "quantities", "type": {"type": "array", "items": "int"}},
              {"name": "flags", "type": {"type": "map", "values": "boolean"}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "paidWith", "type": ["null", "string",
                {"type": "record", "name": "Card", "fields": [{"name": "last4", "type": "string"}]}]},
              {"name": "raw", "type": "bytes"},
              {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
              {"name": "ratio", "type": "float"},
              {"name": "weight", "type": "double"},
              {"name": "gift", "type": "boolean"},
              {"name": "nothing", "type": "null"}
            ]}""");

    private static final Schema LOGICAL = new Schema.Parser().parse("""
            {"type": "record", "name": "Times", "fields": [
              {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
              {"name": "amount", "type": {"type": "fixed", "name": "Amount", "size": 8, "logicalType": "decimal",
                "precision": 12, "scale": 3}},
              {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "opens", "type": {"type": "int", "logicalType": "time-millis"}},
              {"name": "closes", "type": {"type": "long", "logicalType": "time-micros"}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "atMicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "wallClock", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
              {"name": "maybeDay", "type": ["null", {"type": "int", "logicalType": "date"}]}
            ]}""");

    private static final Instant AT = Instant.parse("2026-03-01T12:34:56.789Z");

    /** The datum written in Avro's binary encoding and read back with {@code GenericDatumReader}, then made plain. */
    private static Object readBack(Schema schema, Object datum) throws IOException {
        var out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(schema).write(datum, encoder);
        encoder.flush();
        Object read = new GenericDatumReader<>(schema).read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
        return AvroValues.plain(read, schema);
    }

    @Test
    void shouldGiveARecordAsAMapInFieldOrderWithPlainValues() throws Exception {
        // given
        Schema address = ORDER.getField("address").schema();
        Schema card = ORDER.getField("paidWith").schema().getTypes().get(2);
        var order = new GenericRecordBuilder(ORDER)
                .set("id", 42L)
                .set("customer", "Ada")
                .set("status", new GenericData.EnumSymbol(ORDER.getField("status").schema(), "PAID"))
                .set("address", new GenericRecordBuilder(address).set("city", "London").set("zip", null).build())
                .set("quantities", List.of(2, 1))
                .set("flags", Map.of("express", true))
                .set("note", null)
                .set("paidWith", new GenericRecordBuilder(card).set("last4", "4242").build())
                .set("raw", ByteBuffer.wrap(new byte[] {1, 2, 3}))
                .set("hash", new GenericData.Fixed(ORDER.getField("hash").schema(), new byte[] {(byte) 0xCA, (byte) 0xFE, 0, 1}))
                .set("ratio", 0.1f)
                .set("weight", 2.5)
                .set("gift", false)
                .set("nothing", null)
                .build();

        // when
        Object plain = readBack(ORDER, order);

        // then: only maps, lists, strings, numbers, booleans and nulls, in the schema's field order
        assertThat(plain).asInstanceOf(InstanceOfAssertFactories.MAP).containsExactly(
                entry("id", 42L),
                entry("customer", "Ada"),
                entry("status", "PAID"),
                entry("address", mapOf("city", "London", "zip", null)),
                entry("quantities", List.of(2, 1)),
                entry("flags", Map.of("express", true)),
                entry("note", null),
                entry("paidWith", Map.of("last4", "4242")),
                entry("raw", "AQID"),
                entry("hash", "yv4AAQ=="),
                entry("ratio", 0.1),
                entry("weight", 2.5),
                entry("gift", false),
                entry("nothing", null));
    }

    @Test
    void shouldGiveLogicalTypesAsWhatTheyMean() throws Exception {
        // given
        var decimal = new Conversions.DecimalConversion();
        Schema price = LOGICAL.getField("price").schema();
        Schema amount = LOGICAL.getField("amount").schema();
        UUID ref = UUID.fromString("3f2504e0-4f89-11d3-9a0c-0305e82c3301");
        var times = new GenericRecordBuilder(LOGICAL)
                .set("price", decimal.toBytes(new BigDecimal("12.34"), price, price.getLogicalType()))
                .set("amount", decimal.toFixed(new BigDecimal("-98765.432"), amount, amount.getLogicalType()))
                .set("ref", ref.toString())
                .set("day", (int) LocalDate.parse("2026-03-01").toEpochDay())
                .set("opens", (int) (LocalTime.parse("09:30:15.250").toNanoOfDay() / 1_000_000))
                .set("closes", LocalTime.parse("18:00:00.000123").toNanoOfDay() / 1_000)
                .set("at", AT.toEpochMilli())
                .set("atMicros", AT.toEpochMilli() * 1_000 + 456)
                .set("wallClock", AT.toEpochMilli())
                .set("maybeDay", 0)
                .build();

        // when
        Object plain = readBack(LOGICAL, times);

        // then
        assertThat(plain).asInstanceOf(InstanceOfAssertFactories.MAP).containsExactly(
                entry("price", new BigDecimal("12.34")),
                entry("amount", new BigDecimal("-98765.432")),
                entry("ref", ref.toString()),
                entry("day", "2026-03-01"),
                entry("opens", "09:30:15.250"),
                entry("closes", "18:00:00.000123"),
                entry("at", "2026-03-01T12:34:56.789Z"),
                entry("atMicros", "2026-03-01T12:34:56.789456Z"),
                entry("wallClock", "2026-03-01T12:34:56.789"),
                entry("maybeDay", "1970-01-01"));
    }

    @Test
    void shouldGiveATopLevelValueThatIsNotARecordAsItIs() throws Exception {
        // given
        Schema strings = Schema.createArray(Schema.create(Schema.Type.STRING));
        Schema count = Schema.create(Schema.Type.LONG);
        Schema either = Schema.createUnion(Schema.create(Schema.Type.NULL), Schema.create(Schema.Type.STRING));

        // when / then
        assertThat(readBack(strings, List.of("a", "b"))).isEqualTo(List.of("a", "b"));
        assertThat(readBack(count, 7L)).isEqualTo(7L);
        assertThat(readBack(either, "yes")).isEqualTo("yes");
        assertThat(readBack(either, null)).isNull();
    }

    /** A map in the order given, nulls allowed. */
    private static Map<String, Object> mapOf(Object... keysAndValues) {
        var map = new LinkedHashMap<String, Object>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
