package io.millrace.core.expression;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import net.thisptr.jackson.jq.Expression;
import net.thisptr.jackson.jq.Function;
import net.thisptr.jackson.jq.PathOutput;
import net.thisptr.jackson.jq.Scope;
import net.thisptr.jackson.jq.exception.JsonQueryException;
import net.thisptr.jackson.jq.internal.misc.OnigUtils;
import org.joni.Matcher;
import org.joni.Option;
import org.joni.Region;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * jq's regular expressions, bounded by the render's time: {@code test}, {@code match}, {@code capture},
 * {@code scan}, {@code splits}, {@code sub} and {@code gsub} all come down to {@code _match_impl/3} and
 * {@code _sub_impl/3}, which these replace. jackson-jq runs them with joni (Oniguruma's port) over the UTF-8 bytes of
 * the input, in searches that never stop on their own: {@code test("(a+)+$")} on 28 a's and a b took a minute. Here
 * each search is given the time the render has left (joni stops a search that outlives it) and spends a step, and a
 * replaced text is measured as it is built. Patterns and flags are compiled by jackson-jq's own code
 * ({@link OnigUtils.Pattern}), so they mean what they meant; match offsets and lengths count code points, as jq's do.
 */
final class JqRegex {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** {@code _match_impl(regex; flags; test)}: whether the input matches, or the array of its match objects. */
    static final Function MATCH = (scope, args, in, path, output, version) -> {
        Subject subject = new Subject(input(in));
        args.get(2).apply(scope, in, test -> args.get(1).apply(scope, in, flags -> args.get(0).apply(scope, in, regex -> {
            OnigUtils.Pattern pattern = new OnigUtils.Pattern(text(regex, "regex"), flags.isNull() ? null : text(flags, "flags"));
            List<Match> matches = subject.matches(pattern, test.asBoolean());
            output.emit(test.asBoolean() ? BooleanNode.valueOf(!matches.isEmpty()) : subject.objects(pattern, matches), null);
        })));
    };

    /** {@code _sub_impl(regex; replacement; flags)}: the input with its matches replaced, once per replacement output. */
    static final Function SUB = (scope, args, in, path, output, version) -> {
        Subject subject = new Subject(input(in));
        args.get(0).apply(scope, in, regex -> args.get(2).apply(scope, in, flags -> {
            OnigUtils.Pattern pattern = new OnigUtils.Pattern(text(regex, "regex"), text(flags, "flags"));
            List<JsonNode> parts = subject.parts(pattern, subject.matches(pattern, false));
            replace(scope, parts, 0, new StringBuilder(), args.get(1), output);
        }));
    };

    private JqRegex() {
    }

    /** Emits the text of parts from {@code next} on, each captures object replaced by each value the replacement gives. */
    private static void replace(Scope scope, List<JsonNode> parts, int next, StringBuilder done, Expression replacement,
            PathOutput output) throws JsonQueryException {
        if (next == parts.size()) {
            output.emit(TextNode.valueOf(done.toString()), null);
            return;
        }
        JsonNode part = parts.get(next);
        int mark = done.length();
        if (part.isTextual()) {
            append(done, part.textValue());
            replace(scope, parts, next + 1, done, replacement, output);
        } else {
            replacement.apply(scope, part, value -> {
                append(done, value.asText());
                replace(scope, parts, next + 1, done, replacement, output);
                done.setLength(mark);
            });
        }
        done.setLength(mark);
    }

    private static void append(StringBuilder text, String part) {
        RenderBudget.current().checkChars((long) text.length() + part.length(), "A string built by jq's sub or gsub");
        text.append(part);
    }

    private static String input(JsonNode in) throws JsonQueryException {
        if (!in.isTextual()) {
            throw new JsonQueryException(in.getNodeType().toString().toLowerCase(Locale.ROOT) + " (" + in + ") cannot be matched, as it is not a string");
        }
        return in.textValue();
    }

    private static String text(JsonNode value, String what) throws JsonQueryException {
        if (!value.isTextual()) {
            throw new JsonQueryException(value + " (" + value.getNodeType().toString().toLowerCase(Locale.ROOT) + ") cannot be used as " + what
                    + ", as it is not a string");
        }
        return value.textValue();
    }

    /** Where a match starts and ends in the UTF-8 bytes, and its groups' begin and end, -1 when a group is unset. */
    private record Match(int begin, int end, int[] groups) {
    }

    /** A string matched: its UTF-8 bytes, and for each byte offset the number of code points before it. */
    private static final class Subject {

        private final byte[] bytes;
        private final int[] codePoints;

        Subject(String text) {
            bytes = text.getBytes(StandardCharsets.UTF_8);
            codePoints = new int[bytes.length + 1];
            for (int i = 0; i < bytes.length; i++) {
                codePoints[i + 1] = codePoints[i] + ((bytes[i] & 0xC0) == 0x80 ? 0 : 1);
            }
        }

        /** The matches of the pattern, one (the first) unless the pattern is global; each search bounded in time. */
        List<Match> matches(OnigUtils.Pattern pattern, boolean firstOnly) {
            RenderBudget budget = RenderBudget.current();
            List<Match> matches = new ArrayList<>();
            for (int from = 0; from <= bytes.length; ) {
                budget.spend(1);
                Matcher matcher = pattern.regex.matcher(bytes, 0, bytes.length, Math.max(1, budget.nanosLeft()));
                int at = matcher.search(from, bytes.length, Option.NONE);
                if (at == Matcher.INTERRUPTED) {
                    budget.fail(RenderLimits.exceeded(budget.limits().maxTimeSetting(), budget.limits().maxTime(),
                            "The time this render took (in a jq regular expression)"));
                }
                if (at < 0) {
                    break;
                }
                matches.add(new Match(matcher.getBegin(), matcher.getEnd(), groups(matcher.getRegion())));
                if (firstOnly || !pattern.global) {
                    break;
                }
                from = matcher.getEnd() > at ? matcher.getEnd() : nextCodePoint(at);
            }
            return matches;
        }

        /** jq's match objects: offset, length, string and captures (each with its name, or null). */
        ArrayNode objects(OnigUtils.Pattern pattern, List<Match> matches) {
            ArrayNode objects = NODES.arrayNode();
            for (Match match : matches) {
                ObjectNode object = span(match.begin(), match.end());
                ArrayNode captures = object.putArray("captures");
                for (int group = 1; group <= match.groups().length / 2; group++) {
                    int begin = match.groups()[2 * group - 2];
                    ObjectNode capture = begin < 0 ? unset() : span(begin, match.groups()[2 * group - 1]);
                    captures.add(capture.put("name", pattern.names[group]));
                }
                objects.add(object);
            }
            return objects;
        }

        /** The text between matches, and for each match an object of its named captures, in order. */
        List<JsonNode> parts(OnigUtils.Pattern pattern, List<Match> matches) {
            List<JsonNode> parts = new ArrayList<>();
            int from = 0;
            for (Match match : matches) {
                parts.add(TextNode.valueOf(string(from, match.begin())));
                ObjectNode captures = NODES.objectNode();
                for (int group = 1; group <= match.groups().length / 2; group++) {
                    int begin = match.groups()[2 * group - 2];
                    if (pattern.names[group] != null) {
                        captures.put(pattern.names[group], begin < 0 ? null : string(begin, match.groups()[2 * group - 1]));
                    }
                }
                parts.add(captures);
                from = match.end();
            }
            parts.add(TextNode.valueOf(string(from, bytes.length)));
            return parts;
        }

        private ObjectNode span(int begin, int end) {
            ObjectNode span = NODES.objectNode();
            span.put("offset", codePoints[begin]);
            span.put("length", codePoints[end] - codePoints[begin]);
            span.put("string", string(begin, end));
            return span;
        }

        private static ObjectNode unset() {
            ObjectNode span = NODES.objectNode();
            span.put("offset", -1);
            span.put("length", 0);
            span.putNull("string");
            return span;
        }

        private String string(int begin, int end) {
            return new String(bytes, begin, end - begin, StandardCharsets.UTF_8);
        }

        private int nextCodePoint(int at) {
            int next = at + 1;
            while (next < bytes.length && (bytes[next] & 0xC0) == 0x80) {
                next++;
            }
            return next;
        }

        private static int[] groups(Region region) {
            if (region == null) {
                return new int[0];
            }
            int[] groups = new int[2 * (region.getNumRegs() - 1)];
            for (int group = 1; group < region.getNumRegs(); group++) {
                groups[2 * group - 2] = region.getBeg(group);
                groups[2 * group - 1] = region.getEnd(group);
            }
            return groups;
        }
    }
}
