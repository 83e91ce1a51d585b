package io.millrace.core.expression;

import io.millrace.core.execution.FailureText;
import io.pebbletemplates.pebble.PebbleEngine;
import io.pebbletemplates.pebble.cache.tag.NoOpTagCache;
import io.pebbletemplates.pebble.error.AttributeNotFoundException;
import io.pebbletemplates.pebble.error.ClassAccessException;
import io.pebbletemplates.pebble.error.ParserException;
import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.error.RootAttributeNotFoundException;
import io.pebbletemplates.pebble.loader.StringLoader;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders Pebble templates with Kestra's semantics: strict variables (an undefined variable is an error),
 * no auto-escaping, no new-line trimming after tags, {@code ??}/{@code ???} coalescing, maps and lists
 * printed as compact JSON, dates as ISO-8601, and Kestra's filters, tests and functions (see
 * {@link KestraFunctionsExtension}). Templates are loaded only from the string itself (no file or class-path
 * includes). A render is bounded in steps, time and size ({@link RenderLimits}: every loop iteration, write, filter,
 * function, regular expression and jq builtin spends a per-render budget, and what a render builds is measured), a
 * template may call no Java method ({@link AllowedMethods}), and any failure while parsing or evaluating, a stack
 * overflow and a limit included, is an {@link ExpressionException}. Thread-safe; one instance is meant to be shared by
 * the whole process.
 */
public final class Expressions {

    /** Compiled templates kept; flows reuse the same few templates, user input may not. */
    static final int CACHE_SIZE = 2_000;

    private final LruTemplateCache cache = new LruTemplateCache(CACHE_SIZE);
    private final PebbleEngine engine = new PebbleEngine.Builder()
            .loader(new StringLoader())
            .strictVariables(true)
            .autoEscaping(false)
            .newLineTrimming(false)
            .templateCache(cache)
            .tagCache(new NoOpTagCache())
            .methodAccessValidator(new AllowedMethods())
            .registerExtensionCustomizer(BoundedExtension::new)
            .extension(new CoalescingExtension(), new BoundedExtension(new KestraFunctionsExtension()))
            .build();
    private final RenderLimits limits;

    /** Renders under the default {@link RenderLimits} (tests; the roles take theirs from the configuration). */
    public Expressions() {
        this(RenderLimits.DEFAULTS);
    }

    public Expressions(RenderLimits limits) {
        this.limits = limits;
    }

    /**
     * Renders one template. A string without "{{" or "{%" is returned as-is without touching Pebble
     * (the hot path: most property values are plain text); null renders to null.
     */
    public String render(String template, Map<String, Object> variables) throws ExpressionException {
        if (template == null || !isTemplate(template)) {
            return template;
        }
        try {
            PebbleTemplate compiled = engine.getTemplate(template);
            JsonPrintingWriter writer = new JsonPrintingWriter(RenderBudget.start(limits));
            compiled.evaluate(writer, variables == null ? Map.of() : variables);
            return writer.toString();
        } catch (PebbleException e) {
            throw new ExpressionException(template, describe(template, e), e);
        } catch (RenderLimitException e) {
            throw new ExpressionException(template, e.getMessage(), e);
        } catch (IOException | UncheckedIOException e) {
            throw new ExpressionException(template, limitOr(e, String.valueOf(e.getMessage())), e);
        } catch (RuntimeException e) {
            // a filter, function or attribute getter failed while evaluating
            throw new ExpressionException(template, limitOr(e, FailureText.describe(e)), e);
        } catch (StackOverflowError e) {
            throw new ExpressionException(template, "The template nests too deeply: parsing or evaluating it overflowed"
                    + " the stack (a macro that calls itself?)", e);
        } catch (Error e) {
            // the caller catches ExpressionException only; an expression must not take the executor down
            throw new ExpressionException(template, FailureText.describe(e), e);
        }
    }

    /**
     * Renders every String inside nested Maps and Lists (map keys are not rendered); other values are
     * returned unchanged. Returns new collections (insertion order kept); the input is not modified.
     */
    public Object renderDeep(Object value, Map<String, Object> variables) throws ExpressionException {
        if (value instanceof String s) {
            return render(s, variables);
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> rendered = new LinkedHashMap<>(Math.max(16, map.size() * 2));
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                rendered.put(entry.getKey(), renderDeep(entry.getValue(), variables));
            }
            return rendered;
        }
        if (value instanceof Collection<?> collection) {
            List<Object> rendered = new ArrayList<>(collection.size());
            for (Object item : collection) {
                rendered.add(renderDeep(item, variables));
            }
            return rendered;
        }
        return value;
    }

    static boolean isTemplate(String text) {
        return text.contains("{{") || text.contains("{%");
    }

    int cachedTemplates() {
        return cache.size();
    }

    /** The message of the limit that caused a failure (Pebble and Jackson wrap what they call), or the description. */
    private static String limitOr(Throwable failure, String description) {
        RenderLimitException limit = RenderLimitException.causing(failure);
        return limit != null ? limit.getMessage() : description;
    }

    private static String describe(String template, PebbleException e) {
        String where = e.getLineNumber() != null ? " at line " + e.getLineNumber() : "";
        RenderLimitException limit = RenderLimitException.causing(e);
        if (limit != null) {
            return limit.getMessage() + where;
        }
        if (e instanceof ClassAccessException) {
            return "Calling a Java method is not allowed in expressions (" + e.getPebbleMessage() + ")" + where;
        }
        if (e instanceof RootAttributeNotFoundException missing) {
            return "Missing variable: '" + missing.getAttributeName() + "'" + where;
        }
        if (e instanceof AttributeNotFoundException missing) {
            return "Missing variable: '" + pathOf(template, missing.getAttributeName()) + "'" + where;
        }
        if (e instanceof ParserException) {
            return "Syntax error: " + e.getPebbleMessage() + where;
        }
        Throwable cause = e.getCause();
        String detail = e.getPebbleMessage();
        if (cause != null && cause.getMessage() != null && (detail == null || !detail.contains(cause.getMessage()))) {
            detail = detail + " (" + cause.getMessage() + ")";
        }
        return detail + where;
    }

    private static final Pattern PATH_STEP = Pattern.compile(
            "[A-Za-z_][\\w]*(?:\\s*(?:\\.\\s*[A-Za-z_]\\w*|\\[\\s*'[^']*'\\s*]|\\[\\s*\"[^\"]*\"\\s*]|\\[\\s*\\d+\\s*]))*");

    /**
     * Best effort to name a missing attribute with its path ("outputs.x" rather than "x"): Pebble only tells
     * the attribute. Scans the template for dotted or quoted-bracket paths that end with that attribute and
     * uses the path only when exactly one distinct path matches; otherwise the bare name.
     */
    static String pathOf(String template, String attribute) {
        String found = null;
        Matcher matcher = PATH_STEP.matcher(template);
        while (matcher.find()) {
            String path = matcher.group().replaceAll("\\s+", "");
            String candidate = prefixEndingWith(path, attribute);
            if (candidate != null) {
                if (found != null && !found.equals(candidate)) {
                    return attribute;
                }
                found = candidate;
            }
        }
        return found != null ? found : attribute;
    }

    /** The shortest prefix of path whose last step is the attribute, or null. */
    private static String prefixEndingWith(String path, String attribute) {
        for (String suffix : List.of("." + attribute, "['" + attribute + "']", "[\"" + attribute + "\"]", "[" + attribute + "]")) {
            int from = 0;
            while (true) {
                int at = path.indexOf(suffix, from);
                if (at < 0) {
                    break;
                }
                int end = at + suffix.length();
                if (end == path.length() || path.charAt(end) == '.' || path.charAt(end) == '[') {
                    return path.substring(0, end);
                }
                from = at + 1;
            }
        }
        return null;
    }
}
