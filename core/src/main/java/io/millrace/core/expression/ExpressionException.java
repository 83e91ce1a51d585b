package io.millrace.core.expression;

/**
 * A template could not be rendered: a syntax error, a missing variable (variables are strict, as in Kestra)
 * or an error raised while evaluating. The message names the (shortened) template and the cause, so it can
 * be shown to a user as-is.
 */
public final class ExpressionException extends Exception {

    private static final int MAX_TEMPLATE_CHARS = 120;

    private final String template;

    public ExpressionException(String template, String cause, Throwable source) {
        super("Unable to render '" + shorten(template) + "': " + cause, source);
        this.template = template;
    }

    /** The full template that failed. */
    public String template() {
        return template;
    }

    static String shorten(String template) {
        if (template == null) {
            return "null";
        }
        String oneLine = template.replace("\r", "").replace('\n', ' ');
        return oneLine.length() <= MAX_TEMPLATE_CHARS ? oneLine : oneLine.substring(0, MAX_TEMPLATE_CHARS - 3) + "...";
    }
}
