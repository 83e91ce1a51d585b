package io.millrace.core.expression;

import java.io.Writer;

/**
 * A text built in memory that may not grow past {@code expression-max-string-chars}: what {@code toJson} and
 * {@code format} write into, so that a value far bigger printed than held (a list sharing one big string) or a wide
 * padding fails before it fills the memory. Not thread-safe: one instance per filter call.
 */
final class CappedText extends Writer {

    private final StringBuilder text = new StringBuilder();
    private final RenderBudget budget = RenderBudget.current();
    private final String what;

    CappedText(String what) {
        this.what = what;
    }

    @Override
    public void write(int c) {
        ensureRoom(1);
        text.append((char) c);
    }

    @Override
    public void write(char[] chars, int offset, int length) {
        ensureRoom(length);
        text.append(chars, offset, length);
    }

    @Override
    public void write(String s, int offset, int length) {
        ensureRoom(length);
        text.append(s, offset, offset + length);
    }

    private void ensureRoom(int chars) {
        budget.checkChars((long) text.length() + chars, what);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
