package io.millrace.core.expression;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The secrets of one task run: {@code secret('NAME')} resolves through it, and it keeps every value it gave so that
 * what the run prints (its log lines, outputs and error) is masked: each of those values, and the forms in which a
 * value is commonly printed, becomes {@link #MASK}. The forms are the value itself, as it is inside a JSON string
 * (quotes, backslashes and control characters escaped) and, for values of {@value #MIN_CHARS_ENCODED} characters or
 * more, its UTF-8 bytes in base64 and base64url, padded or not (a shorter value's base64 is a few letters that
 * common text holds anyway). Longer forms are masked first, so a secret that holds another is masked whole. An empty
 * value masks nothing. Anything else made from a value (a part of it, another encoding, a hash) is not recognised.
 *
 * <p>Made by the worker for each task run and reached by expressions as the reserved variable
 * {@link Variables#SECRETS}; the values are kept here only, for as long as the run. Nothing here reads as a value:
 * printed or serialized, an instance shows no value (no getters, no public fields). Thread-safe: a task may render on
 * one thread while its deadline masks its error on another.
 */
public final class TaskSecrets {

    /** What a secret's value is replaced with, whatever its length (as Kestra masks). */
    public static final String MASK = "******";
    static final int MIN_CHARS_ENCODED = 4;

    private final SecretSource source;
    private final Set<String> values = new LinkedHashSet<>();
    /** The forms to mask, longest first; replaced whole on each new value. */
    private volatile List<String> forms = List.of();

    public TaskSecrets(SecretSource source) {
        this.source = source;
    }

    /** The value of the secret {@code name}, kept to be masked from now on. */
    public String resolve(String name) throws SecretException {
        String value = source.value(name);
        keep(value);
        return value;
    }

    /** {@code value}, given to the run otherwise (a SECRET input the worker decrypted), kept to be masked from now. */
    public String add(String value) {
        keep(value);
        return value;
    }

    /** {@code text} with every form of every value given so far masked; null stays null. */
    public String mask(String text) {
        List<String> masked = forms;
        if (text == null || masked.isEmpty()) {
            return text;
        }
        String result = text;
        for (String form : masked) {
            if (result.contains(form)) {
                result = result.replace(form, MASK);
            }
        }
        return result;
    }

    /** {@code value} with every string in it masked (map keys too, in maps and lists); other values as they are. */
    public Object maskDeep(Object value) {
        if (value instanceof String text) {
            return mask(text);
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> masked = new LinkedHashMap<>(Math.max(16, map.size() * 2));
            map.forEach((key, item) -> masked.put(maskDeep(key), maskDeep(item)));
            return masked;
        }
        if (value instanceof Collection<?> collection) {
            List<Object> masked = new ArrayList<>(collection.size());
            collection.forEach(item -> masked.add(maskDeep(item)));
            return masked;
        }
        return value;
    }

    /** {@link #maskDeep(Object)} of a map of outputs, typed as one. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> maskOutputs(Map<String, Object> outputs) {
        return forms.isEmpty() || outputs == null ? outputs : (Map<String, Object>) maskDeep(outputs);
    }

    @Override
    public String toString() {
        return "(the secrets of a task run)";
    }

    private synchronized void keep(String value) {
        if (value.isEmpty() || !values.add(value)) {
            return;
        }
        Set<String> all = new LinkedHashSet<>(forms);
        all.addAll(formsOf(value));
        List<String> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparingInt(String::length).reversed());
        forms = List.copyOf(sorted);
    }

    private static Set<String> formsOf(String value) {
        Set<String> forms = new LinkedHashSet<>();
        forms.add(value);
        forms.add(new String(JsonStringEncoder.getInstance().quoteAsString(value)));
        if (value.length() >= MIN_CHARS_ENCODED) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            for (Base64.Encoder encoder : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
                forms.add(encoder.encodeToString(bytes));
                forms.add(encoder.withoutPadding().encodeToString(bytes));
            }
        }
        return forms;
    }
}
