package io.millrace.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The matchers of expected.json ({@code equals}, {@code contains}, {@code regex} (search), {@code fullmatch},
 * {@code hasItems}, {@code iso_datetime_within_seconds_of_now}, {@code equals_child_execution_id}) applied to
 * dotted paths into outputs. A last step {@code x_as_json} reads {@code x} printed as compact JSON.
 */
final class OutputMatchers {
    /** Numbers compare by value: 200 equals 200L, 4.2 equals 4.20. */
    private static final Comparator<JsonNode> NUMBERS_BY_VALUE = (a, b) -> a.isNumber() && b.isNumber()
            ? a.decimalValue().compareTo(b.decimalValue())
            : a.equals(b) ? 0 : 1;
    private static final String AS_JSON = "_as_json";
    private static final Set<String> KNOWN = Set.of("equals", "contains", "regex", "fullmatch", "hasItems",
            "iso_datetime_within_seconds_of_now", "equals_child_execution_id");

    private OutputMatchers() {
    }

    /**
     * @param spec {path: {matcher: expected, ...}, ...}
     * @param childExecutionIds tells whether an id is one of the execution's child executions
     */
    static void check(String where, JsonNode outputs, JsonNode spec, Predicate<String> childExecutionIds, Findings findings) {
        spec.properties().forEach(entry -> {
            JsonNode actual = resolve(outputs, entry.getKey());
            entry.getValue().properties().forEach(m -> {
                if (KNOWN.contains(m.getKey())) {
                    match(where + "." + entry.getKey(), actual, m, childExecutionIds, findings);
                }
            });
        });
    }

    /** Records matchers this runner does not know, and paths given something other than matchers, as unknown. */
    static void vet(String where, JsonNode spec, Findings findings) {
        spec.properties().forEach(entry -> {
            if (!entry.getValue().isObject()) {
                findings.unknown(where + "." + entry.getKey() + ": expected matchers, but found " + entry.getValue());
            }
            entry.getValue().fieldNames().forEachRemaining(name -> {
                if (!KNOWN.contains(name)) {
                    findings.unknown(where + "." + entry.getKey() + ": matcher '" + name + "'");
                }
            });
        });
    }

    /** The node at a dotted path ({@code values.output1}), or a missing node. */
    static JsonNode resolve(JsonNode root, String path) {
        boolean asJson = path.endsWith(AS_JSON);
        JsonNode current = root;
        for (String step : (asJson ? path.substring(0, path.length() - AS_JSON.length()) : path).split("\\.")) {
            current = current.path(step);
        }
        return asJson && !current.isMissingNode() ? TextNode.valueOf(current.toString()) : current;
    }

    static boolean jsonEquals(JsonNode expected, JsonNode actual) {
        return expected.equals(NUMBERS_BY_VALUE, actual);
    }

    private static void match(String label, JsonNode actual, Map.Entry<String, JsonNode> matcher,
            Predicate<String> childExecutionIds, Findings findings) {
        JsonNode expected = matcher.getValue();
        String name = matcher.getKey();
        if (actual.isMissingNode()) {
            findings.deviation(label + ": expected " + name + " " + expected + ", but there is no such output");
            return;
        }
        boolean ok = switch (name) {
            case "equals" -> jsonEquals(expected, actual);
            case "contains" -> text(actual).contains(expected.asText());
            case "regex" -> Pattern.compile(expected.asText()).matcher(text(actual)).find();
            case "fullmatch" -> Pattern.compile(expected.asText()).matcher(text(actual)).matches();
            case "hasItems" -> actual.isArray() && containsAll(actual, expected);
            case "iso_datetime_within_seconds_of_now" -> withinSecondsOfNow(text(actual), expected.asLong());
            case "equals_child_execution_id" -> actual.isTextual() && childExecutionIds.test(actual.asText()) == expected.asBoolean();
            default -> throw new IllegalStateException(name);
        };
        if (!ok) {
            findings.deviation(label + ": expected " + name + " " + expected + ", but was " + actual);
        }
    }

    private static boolean containsAll(JsonNode actual, JsonNode items) {
        for (JsonNode item : items) {
            boolean found = false;
            for (JsonNode element : actual) {
                found |= jsonEquals(item, element);
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    private static boolean withinSecondsOfNow(String text, long seconds) {
        Instant instant;
        try {
            instant = OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            return false;
        }
        return Duration.between(instant, Instant.now()).abs().compareTo(Duration.ofSeconds(seconds)) <= 0;
    }

    private static String text(JsonNode node) {
        return node.isTextual() ? node.asText() : node.toString();
    }
}
