package io.millrace.core.expression;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.pebbletemplates.pebble.extension.writer.SpecializedWriter;

import java.io.IOException;
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
 * ISO-8601, everything else as Pebble would. Prints at most {@code expression-max-rendered-chars} characters
 * (Pebble's own maxRenderedSize would wrap this writer and so lose the JSON printing), and every write spends a step
 * of the render's budget. A map or list is printed straight into this writer, so one far bigger printed than held
 * (many elements sharing one big string) fails at the limit instead of being built whole first. Not thread-safe: one
 * instance per render.
 */
final class JsonPrintingWriter extends Writer implements SpecializedWriter {

    static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private final StringBuilder out = new StringBuilder();
    private final RenderBudget budget;

    JsonPrintingWriter(RenderBudget budget) {
        this.budget = budget;
    }

    @Override
    public void write(Object value) {
        if (value instanceof Map<?, ?> || value instanceof Collection<?> || value instanceof Object[]) {
            writeJson(value);
        } else if (value instanceof ZonedDateTime zoned) {
            // ZonedDateTime.toString() appends "[Zone/Id]", which is not ISO-8601
            write(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(zoned));
        } else {
            SpecializedWriter.super.write(value);
        }
    }

    /** Writes a value as JSON into a writer (this one, or a {@link CappedText}). */
    static void writeJson(Object value, Writer writer) {
        try {
            JSON.writeValue(writer, value);
        } catch (IOException e) {
            RenderLimitException limit = RenderLimitException.causing(e);
            if (limit != null) {
                throw limit;
            }
            throw new UncheckedIOException("value cannot be printed as JSON: "
                    + (e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage()), e);
        }
    }

    private void writeJson(Object value) {
        writeJson(value, this);
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

    /**
     * Spends a step, and checks the size: before appending text, after appending a number or a char (a few characters
     * over is harmless).
     */
    private void ensureRoom(int chars) {
        budget.spend(1);
        int max = budget.limits().maxRenderedChars();
        if ((long) out.length() + chars > max) {
            budget.fail(RenderLimits.exceeded(RenderLimits.MAX_RENDERED_CHARS, max, "The rendered text"));
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
