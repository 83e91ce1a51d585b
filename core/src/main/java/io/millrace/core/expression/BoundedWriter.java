package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.writer.SpecializedWriter;
import io.pebbletemplates.pebble.utils.StringUtils;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;

/**
 * The writer a {@link BoundedBody} writes through when it does not write to the render's output: Pebble renders a
 * macro, a filter tag, a block called by {@code block()} and a cache tag into a StringWriter of its own, where
 * {@link JsonPrintingWriter}'s bound does not reach. Every write spends a step, and the StringWriter may not grow
 * past {@code expression-max-string-chars}. Values print as Pebble prints them into a StringWriter; a list or map is
 * measured before it is printed ({@link Sizes#printedChars}).
 */
final class BoundedWriter extends Writer implements SpecializedWriter {

    private static final String WHAT = "The text a macro, filter or block builds";

    private final Writer out;
    private final StringWriter text;

    private BoundedWriter(Writer out) {
        this.out = out;
        this.text = out instanceof StringWriter stringWriter ? stringWriter : null;
    }

    /** The writer itself when it is already bounded (the render's output, or a BoundedWriter), else one around it. */
    static Writer around(Writer writer) {
        return writer instanceof JsonPrintingWriter || writer instanceof BoundedWriter ? writer : new BoundedWriter(writer);
    }

    @Override
    public void write(Object value) {
        if (Sizes.elements(value) > 0) {
            RenderBudget budget = RenderBudget.current();
            long room = budget.limits().maxStringChars() - (long) length();
            budget.checkChars(length() + Sizes.printedChars(value, room), WHAT);
        }
        writeSpecialized(StringUtils.toString(value));
    }

    @Override
    public void writeSpecialized(String s) {
        write(s, 0, s.length());
    }

    @Override
    public void write(String s, int offset, int length) {
        ensureRoom(length);
        try {
            out.write(s, offset, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void write(char[] chars, int offset, int length) throws IOException {
        ensureRoom(length);
        out.write(chars, offset, length);
    }

    private void ensureRoom(int chars) {
        RenderBudget budget = RenderBudget.current();
        budget.spend(1);
        budget.checkChars((long) length() + chars, WHAT);
    }

    private int length() {
        return text == null ? 0 : text.getBuffer().length();
    }

    @Override
    public void writeSpecialized(int i) {
        writeSpecialized(String.valueOf(i));
    }

    @Override
    public void writeSpecialized(long l) {
        writeSpecialized(String.valueOf(l));
    }

    @Override
    public void writeSpecialized(double d) {
        writeSpecialized(String.valueOf(d));
    }

    @Override
    public void writeSpecialized(float f) {
        writeSpecialized(String.valueOf(f));
    }

    @Override
    public void writeSpecialized(short s) {
        writeSpecialized(String.valueOf(s));
    }

    @Override
    public void writeSpecialized(byte b) {
        writeSpecialized(String.valueOf(b));
    }

    @Override
    public void writeSpecialized(char c) {
        writeSpecialized(String.valueOf(c));
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
