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
 * ISO-8601, everything else as Pebble would. Prints at most {@link RenderLimits#MAX_RENDERED_CHARS} characters
 * (Pebble's own maxRenderedSize would wrap this writer and so lose the JSON printing). Not thread-safe: one instance
 * per render.
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
            write(toJson(value));
        } else if (value instanceof ZonedDateTime zoned) {
            // ZonedDateTime.toString() appends "[Zone/Id]", which is not ISO-8601
            write(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(zoned));
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
        ensureRoom(0);
    }

    @Override
    public void writeSpecialized(long l) {
        out.append(l);
        ensureRoom(0);
    }

    @Override
    public void writeSpecialized(double d) {
        out.append(d);
        ensureRoom(0);
    }

    @Override
    public void writeSpecialized(float f) {
        out.append(f);
        ensureRoom(0);
    }

    @Override
    public void writeSpecialized(short s) {
        out.append(s);
        ensureRoom(0);
    }

    @Override
    public void writeSpecialized(byte b) {
        out.append(b);
        ensureRoom(0);
    }

    @Override
    public void writeSpecialized(char c) {
        out.append(c);
        ensureRoom(0);
    }

    @Override
    public void writeSpecialized(String s) {
        write(s);
    }

    @Override
    public void write(char[] chars, int offset, int length) {
        ensureRoom(length);
        out.append(chars, offset, length);
    }

    @Override
    public void write(String s) {
        ensureRoom(s.length());
        out.append(s);
    }

    /** Checked before appending text, and after appending a number or a char (a few characters over is harmless). */
    private void ensureRoom(int chars) {
        if (out.length() + chars > RenderLimits.MAX_RENDERED_CHARS) {
            throw new RenderLimitException(RenderLimits.exceeded("MAX_RENDERED_CHARS", RenderLimits.MAX_RENDERED_CHARS,
                    "The rendered text"));
        }
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
