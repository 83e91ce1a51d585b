package io.millrace.worker.task;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import io.millrace.serdes.Json;
import io.millrace.worker.task.KafkaSerializers.KafkaSerializer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The records a Produce task sends, read from its {@code from}: one row (a map), a list of rows, or text rendering to
 * the JSON of either. Each row is rendered on its own, so a problem names the row ({@code from[2].value}); the JSON a
 * template renders to is taken as data and not rendered again. A row's keys are Kestra's: {@code key}, {@code value},
 * {@code topic} (else the task's), {@code partition}, {@code timestamp} (epoch milliseconds or an ISO-8601 instant
 * with its offset), {@code headers} (a map, or a list of one-entry maps as Kestra's Consume outputs them) and
 * {@code offset}, which such outputs carry and which is ignored. Any other key is refused rather than dropped, since it
 * is most likely a misspelt one.
 */
final class ProduceRows {

    /** One record to send, and which row of {@code from} it came from. */
    record Row(String where, ProducerRecord<byte[], byte[]> record) {
    }

    private static final Set<String> KEYS = Set.of("key", "value", "topic", "partition", "timestamp", "headers", "offset");

    private final TaskProperties props;
    private final String defaultTopic;
    private final KafkaSerializer keys;
    private final KafkaSerializer values;

    ProduceRows(TaskProperties props, String defaultTopic, KafkaSerializer keys, KafkaSerializer values) {
        this.props = props;
        this.defaultTopic = defaultTopic;
        this.keys = keys;
        this.values = values;
    }

    List<Row> read() throws TaskException {
        Object from = props.required("from");
        if (from instanceof String) {
            return fromText(props.string("from"));
        }
        if (from instanceof Map<?, ?>) {
            return List.of(row("from", props.deep("from", from)));
        }
        if (from instanceof Collection<?> list) {
            List<Row> rows = new ArrayList<>(list.size());
            int i = 0;
            for (Object item : list) {
                String where = "from[" + i++ + "]";
                rows.add(row(where, props.deep(where, item)));
            }
            return rows;
        }
        throw props.problem("property 'from' must be a row (a map) or a list of rows, got " + from);
    }

    private List<Row> fromText(String text) throws TaskException {
        if (text.trim().startsWith("kestra://")) {
            throw props.problem("property 'from' is an internal-storage URI, which is not supported (no internal "
                    + "storage here); give a row (a map), a list of rows, or their JSON");
        }
        Object parsed;
        try {
            parsed = Json.MAPPER.readerFor(Object.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(text);
        } catch (JsonProcessingException e) {
            throw props.problem("property 'from' must be a row (a map), a list of rows, or their JSON; "
                    + "its text is not JSON: " + e.getOriginalMessage(), e);
        }
        if (parsed instanceof Map<?, ?>) {
            return List.of(row("from", parsed));
        }
        if (parsed instanceof List<?> list) {
            List<Row> rows = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                rows.add(row("from[" + i + "]", list.get(i)));
            }
            return rows;
        }
        throw props.problem("property 'from' must be the JSON of a row (an object) or of a list of rows");
    }

    private Row row(String where, Object rendered) throws TaskException {
        if (!(rendered instanceof Map<?, ?> row)) {
            throw props.problem("property '" + where + "' must be a row (a map with key, value, ...)");
        }
        for (Object name : row.keySet()) {
            if (!KEYS.contains(String.valueOf(name))) {
                throw props.problem("property '" + where + "' has an unknown key '" + name + "'; a row has "
                        + new TreeSet<>(KEYS));
            }
        }
        String topic = topic(where, row.get("topic"));
        var record = new ProducerRecord<>(topic, partition(where, row.get("partition")),
                timestamp(where, row.get("timestamp")), serialize(keys, where + ".key", row.get("key")),
                serialize(values, where + ".value", row.get("value")), headers(where, row.get("headers")));
        return new Row(where, record);
    }

    private String topic(String where, Object topic) throws TaskException {
        if (topic == null) {
            if (defaultTopic == null || defaultTopic.isBlank()) {
                throw props.problem("property '" + where + "' has no topic, and the task's 'topic' is not set");
            }
            return defaultTopic.trim();
        }
        if (topic instanceof Map<?, ?> || topic instanceof Collection<?> || String.valueOf(topic).isBlank()) {
            throw props.problem("property '" + where + ".topic' must be a topic name");
        }
        return String.valueOf(topic).trim();
    }

    private Integer partition(String where, Object partition) throws TaskException {
        if (partition == null) {
            return null;
        }
        try {
            int number = new BigDecimal(String.valueOf(partition).trim()).intValueExact();
            if (number >= 0) {
                return number;
            }
        } catch (NumberFormatException | ArithmeticException e) {
            // refused below
        }
        throw props.problem("property '" + where + ".partition' must be a partition number (0 or more), got '" + partition + "'");
    }

    private Long timestamp(String where, Object timestamp) throws TaskException {
        if (timestamp == null) {
            return null;
        }
        String text = String.valueOf(timestamp).trim();
        long millis;
        if (timestamp instanceof Number || text.matches("-?\\d+")) {
            try {
                millis = new BigDecimal(text).longValueExact();
            } catch (NumberFormatException | ArithmeticException e) {
                throw props.problem("property '" + where + ".timestamp' must be whole epoch milliseconds, got '" + text + "'", e);
            }
        } else {
            millis = instant(where, text).toEpochMilli();
        }
        if (millis < 0) {
            throw props.problem("property '" + where + ".timestamp' must not be before 1970, got '" + text + "'");
        }
        return millis;
    }

    private Instant instant(String where, String text) throws TaskException {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException notOffset) {
            try {
                return ZonedDateTime.parse(text).toInstant();
            } catch (DateTimeParseException notZoned) {
                throw props.problem("property '" + where + ".timestamp' must be epoch milliseconds or an ISO-8601 date "
                        + "and time with an offset (2024-01-02T03:04:05Z), got '" + text + "'");
            }
        }
    }

    private byte[] serialize(KafkaSerializer serializer, String where, Object value) throws TaskException {
        try {
            return serializer.write(value);
        } catch (IllegalArgumentException e) {
            throw props.problem("property '" + where + "': " + e.getMessage(), e);
        }
    }

    private List<Header> headers(String where, Object headers) throws TaskException {
        List<Header> result = new ArrayList<>();
        if (headers == null) {
            return result;
        }
        if (headers instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> header : map.entrySet()) {
                result.add(header(where + ".headers", header));
            }
            return result;
        }
        if (headers instanceof Collection<?> list) {
            int i = 0;
            for (Object item : list) {
                String at = where + ".headers[" + i++ + "]";
                if (!(item instanceof Map<?, ?> single) || single.size() != 1) {
                    throw props.problem("property '" + at + "' must be a map of one header name to its value");
                }
                result.add(header(at, single.entrySet().iterator().next()));
            }
            return result;
        }
        throw props.problem("property '" + where + ".headers' must be a map of names to values, or a list of one-entry maps");
    }

    private Header header(String where, Map.Entry<?, ?> header) throws TaskException {
        Object value = header.getValue();
        if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
            throw props.problem("property '" + where + "': the value of header '" + header.getKey() + "' must be text");
        }
        byte[] bytes = value == null ? null : String.valueOf(value).getBytes(StandardCharsets.UTF_8);
        return new RecordHeader(String.valueOf(header.getKey()), bytes);
    }
}
