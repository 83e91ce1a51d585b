package io.millrace.core.flow;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Checks and coerces the inputs given to an execution against the flow's declared inputs. A {@code SECRET} input's
 * value must be encrypted ({@link InputCipher}: the gateway encrypts it when it accepts a start), and no other input
 * may hold an encrypted value (only a worker decrypts, and only what a SECRET input gave). No problem quotes a SECRET
 * input's value.
 */
public final class Inputs {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Inputs() {
    }

    /** The problems found, if any; each names the input and what was expected. */
    public static final class InvalidInputsException extends Exception {
        private final List<String> problems;

        InvalidInputsException(List<String> problems) {
            super(String.join("; ", problems));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    /** The typed inputs the execution sees: given values coerced, defaults filled in. */
    public static Map<String, Object> resolve(List<InputDef> declared, Map<String, Object> given)
            throws InvalidInputsException {
        var problems = new ArrayList<String>();
        var known = new TreeSet<String>();
        declared.forEach(d -> known.add(d.id()));
        given.keySet().stream().filter(k -> !known.contains(k)).sorted().forEach(k -> problems.add(
                "Unknown input '" + k + "'; the flow declares " + (known.isEmpty() ? "no inputs" : known)));
        var resolved = new LinkedHashMap<String, Object>();
        for (InputDef input : declared) {
            Object value = given.containsKey(input.id()) ? given.get(input.id()) : input.defaults();
            if (value == null) {
                if (input.required()) {
                    problems.add("Expected input '" + input.id() + "' (" + input.type() + ") to be given, but it is missing");
                }
                continue;
            }
            if (input.type() == InputType.SECRET) {
                if (InputCipher.isEncrypted(value)) {
                    resolved.put(input.id(), value);
                } else {
                    problems.add("Expected input '" + input.id() + "' (SECRET) to be encrypted by the gateway, which"
                            + " encrypts the inputs of a start through the API or a webhook, but it was given another"
                            + " way (a trigger's or a Subflow's inputs, a default, a resume), which cannot encrypt it");
                }
                continue;
            }
            if (InputCipher.isEncrypted(value)) {
                problems.add("Expected input '" + input.id() + "' (" + input.type() + ") not to hold an encrypted"
                        + " value, which only a SECRET input may hold");
                continue;
            }
            Object coerced;
            try {
                coerced = coerce(input.type(), value);
            } catch (IllegalArgumentException | DateTimeParseException | JsonProcessingException e) {
                problems.add("Expected input '" + input.id() + "' to be " + input.type() + ", but got '"
                        + abbreviate(String.valueOf(value)) + "'");
                continue;
            }
            List<?> chosen = coerced instanceof List<?> many ? many : List.of(coerced);
            if (input.values() != null && !input.allowCustomValue() && !input.values().containsAll(chosen)) {
                problems.add("Expected input '" + input.id() + "' (" + input.type() + ") to be "
                        + (input.type() == InputType.MULTISELECT ? "some of " : "one of ") + input.values() + ", but got '"
                        + abbreviate(String.valueOf(value)) + "'");
                continue;
            }
            resolved.put(input.id(), coerced);
        }
        if (!problems.isEmpty()) {
            throw new InvalidInputsException(problems);
        }
        return resolved;
    }

    private static Object coerce(InputType type, Object value) throws JsonProcessingException {
        return switch (type) {
            case INT -> value instanceof Number n ? (Object) wholeNumber(n) : Long.parseLong(scalar(value).trim());
            case FLOAT -> value instanceof Number n ? (Object) n.doubleValue() : Double.parseDouble(scalar(value).trim());
            case BOOLEAN -> value instanceof Boolean b ? b : parseBoolean(scalar(value));
            case JSON -> value instanceof String s ? JSON.readValue(s, Object.class) : value;
            case ARRAY -> value instanceof List<?> ? value : JSON.readValue(scalar(value), List.class);
            case DATETIME -> Instant.parse(scalar(value)).toString();
            case DATE -> LocalDate.parse(scalar(value)).toString();
            case TIME -> LocalTime.parse(scalar(value)).toString();
            case DURATION -> Duration.parse(scalar(value)).toString();
            case STRING, ENUM, SELECT, URI, EMAIL -> scalar(value);
            case MULTISELECT -> (value instanceof List<?> list ? list : value instanceof String s && s.trim().startsWith("[")
                    ? JSON.readValue(s, List.class) : List.of(value)).stream().map(Inputs::scalar).toList();
            case SECRET -> throw new IllegalStateException("a SECRET input is never coerced: it is encrypted");
        };
    }

    /**
     * {@code given} with the value of each declared SECRET input that is not encrypted replaced by
     * {@link io.millrace.core.expression.TaskSecrets#MASK}: what may be written down of inputs that did not resolve.
     */
    public static Map<String, Object> redacted(List<InputDef> declared, Map<String, Object> given) {
        var redacted = new LinkedHashMap<String, Object>(given);
        for (InputDef input : declared) {
            if (input.type() == InputType.SECRET && redacted.containsKey(input.id())
                    && !InputCipher.isEncrypted(redacted.get(input.id()))) {
                redacted.put(input.id(), io.millrace.core.expression.TaskSecrets.MASK);
            }
        }
        return redacted;
    }

    /** A number as a long, if it is a whole number within a long's range (no silent wrap or clamp). */
    private static long wholeNumber(Number n) {
        try {
            return new java.math.BigDecimal(n.toString()).longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("not a whole number within the range of a long", e);
        }
    }

    private static String scalar(Object value) {
        if (value instanceof Map<?, ?> || value instanceof List<?>) {
            throw new IllegalArgumentException("not a scalar");
        }
        return String.valueOf(value);
    }

    private static Boolean parseBoolean(String text) {
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not a boolean");
        };
    }

    private static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }
}
