package io.millrace.core.expression;

import java.lang.reflect.Array;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.stream.IntStream;

/** How big a value a template works on is, in steps and characters, and the check of a value a render built. */
final class Sizes {

    /** Characters read for one step: reading text is about a thousand times cheaper than a loop iteration. */
    static final int CHARS_PER_STEP = 1_024;

    private Sizes() {
    }

    /** The steps of walking a value once: its elements, or one per {@value #CHARS_PER_STEP} of its characters. */
    static long work(Object value) {
        if (value instanceof CharSequence text) {
            return text.length() / CHARS_PER_STEP;
        }
        return elements(value);
    }

    /** The elements of a list, map or array (shallow), 0 for anything else. */
    static long elements(Object value) {
        if (value instanceof Collection<?> collection) {
            return collection.size();
        }
        if (value instanceof Map<?, ?> map) {
            return map.size();
        }
        if (value != null && value.getClass().isArray()) {
            return Array.getLength(value);
        }
        return 0;
    }

    /**
     * Returns the value a render built after checking its size: a string against {@code expression-max-string-chars},
     * a list, map or array (its own elements) against {@code expression-max-collection-size}.
     */
    static <T> T checkBuilt(T value, String what) {
        RenderBudget budget = RenderBudget.current();
        if (value instanceof CharSequence text) {
            budget.checkChars(text.length(), what);
        } else {
            budget.checkElements(elements(value), what);
        }
        return value;
    }

    /**
     * The characters {@code String.valueOf(value)} would have, counted without building it and without going far
     * past {@code limit}: a list or map that shares one big string between many elements (or itself between many
     * levels) prints far bigger than it weighs, and its toString would fill the memory before any check. Scalars
     * count their own text; a list or map its elements' and two separators each. Stops once over the limit.
     */
    static long printedChars(Object value, long limit) {
        if (value == null) {
            return 4;
        }
        if (value instanceof CharSequence text) {
            return text.length();
        }
        if (value instanceof Map<?, ?> map) {
            long chars = 2;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                chars += printedChars(entry.getKey(), limit - chars) + 3;
                chars += chars > limit ? 0 : printedChars(entry.getValue(), limit - chars);
                if (chars > limit) {
                    return chars;
                }
            }
            return chars;
        }
        if (value instanceof Collection<?> || value.getClass().isArray()) {
            return printedElements(value, limit);
        }
        return String.valueOf(value).length();
    }

    private static long printedElements(Object value, long limit) {
        long chars = 2;
        Iterable<?> elements = value instanceof Collection<?> collection ? collection : arrayElements(value);
        for (Object element : elements) {
            chars += printedChars(element, limit - chars) + 2;
            if (chars > limit) {
                return chars;
            }
        }
        return chars;
    }

    private static Iterable<?> arrayElements(Object array) {
        if (array instanceof Object[] objects) {
            return Arrays.asList(objects);
        }
        int length = Array.getLength(array);
        return () -> IntStream.range(0, length).mapToObj(i -> Array.get(array, i)).iterator();
    }
}
