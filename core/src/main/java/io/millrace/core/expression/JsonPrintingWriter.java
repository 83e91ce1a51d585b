package io.millrace.core.expression;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.pebbletemplates.pebble.extension.writer.SpecializedWriter;

import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.Map;

/**
 * The writer every render goes through. Pebble hands each {@code {{ value }}} to {@link #write(Object)}
 * (it does so for any {@link SpecializedWriter} that is not a StringWriter), which lets us print like Kestra:
 * maps, collections and arrays as compact JSON (so the rendered text parses back), temporal values as
 * ISO-8601, everything else as Pebble would. Not thread-safe: one instance per render.
 */
final class JsonPrintingWriter extends Writer implements SpecializedWriter {

    static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private final StringBuilder out = new StringBuilder();

    @Override
    public void write(Object value) {
        if (value instanceof Map<?, ?> || value instanceof Collection<?> || value instanceof Object[]) {
            out.append(toJson(value));
        } else if (value instanceof ZonedDateTime zoned) {
            // ZonedDateTime.toString() appends "[Zone/Id]", which is not ISO-8601
            out.append(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(zoned));
        } else {
            SpecializedWriter.super.write(value);
        }
    }

    static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("value cannot be printed as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public void writeSpecialized(int i) {
        out.append(i);
    }

    @Override
    public void writeSpecialized(long l) {
        out.append(l);
    }

    @Override
    public void writeSpecialized(double d) {
        out.append(d);
    }

    @Override
    public void writeSpecialized(float f) {
        out.append(f);
    }

    @Override
    public void writeSpecialized(short s) {
        out.append(s);
    }

    @Override
    public void writeSpecialized(byte b) {
        out.append(b);
    }

    @Override
    public void writeSpecialized(char c) {
        out.append(c);
    }

    @Override
    public void writeSpecialized(String s) {
        out.append(s);
    }

    @Override
    public void write(char[] chars, int offset, int length) {
        out.append(chars, offset, length);
    }

    @Override
    public void write(String s) {
        out.append(s);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
