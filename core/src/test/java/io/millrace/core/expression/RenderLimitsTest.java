package io.millrace.core.expression;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every limit of a render reached fails it fast, naming the limit's setting; templates under the limits render as before. */
@Timeout(60)
class RenderLimitsTest {

    /** The runIf of the report: 10^10 iterations over one range of 100,000 elements. */
    static final String NESTED_LOOPS_RUN_IF =
            "{% set l = range(0,99999) %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}true";

    /**
     * The default limits but a long time budget, so that the limit under test, not the clock, decides on a slow machine
     * (the time limit has tests of its own).
     */
    private final Expressions expressions = new Expressions(RenderLimits.DEFAULTS.withMaxTime(Duration.ofMinutes(5)));
    /** A small step budget and a long time budget, so that steps, not the clock, decide. */
    private final Expressions fewSteps = new Expressions(RenderLimits.DEFAULTS.withMaxSteps(100_000)
            .withMaxTime(Duration.ofMinutes(5)));

    @Test
    void shouldFailTheNestedLoopsOfTheReportAtTheStepLimit() {
        // when / then: the range is built once; the iterations are what count
        assertThatThrownBy(() -> expressions.render(NESTED_LOOPS_RUN_IF, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("exceeds the render limit expression-max-steps (1000000)");
    }

    @Test
    void shouldCountEveryLoopIteration() throws Exception {
        // given: 1,000 range elements, 1,000,000 iterations
        String template = "{% set l = range(1, 1000) %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}done";

        // when / then
        assertThatThrownBy(() -> fewSteps.render(template, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The work of this render exceeds the render limit expression-max-steps (100000)");
        assertThat(fewSteps.render(template.replace("1000", "200"), Map.of())).isEqualTo("done");
    }

    @Test
    void shouldCountTheWritesOfARender() {
        // given: 30,000 range elements and iterations, and 90,000 writes
        String template = "{% for i in range(1, 30000) %}{{ i }}{{ i }}{{ i }}{% endfor %}";

        // when / then
        assertThatThrownBy(() -> fewSteps.render(template, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("expression-max-steps (100000)");
    }

    @Test
    void shouldStopACatastrophicRegularExpressionAtTheStepLimit() {
        // given: a pattern Java's matcher takes hours over on 40 characters
        Map<String, Object> vars = Map.of("text", "a".repeat(40) + "!");

        // when / then
        assertThatThrownBy(() -> fewSteps.render("{{ text | split('(.*a){20}$') }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("exceeds the render limit expression-max-steps (100000)");
    }

    @Test
    void shouldStopARenderAtTheTimeLimit() {
        // given: steps without end
        var quick = new Expressions(RenderLimits.DEFAULTS.withMaxSteps(Long.MAX_VALUE).withMaxTime(Duration.ofMillis(100)));

        // when / then
        assertThatThrownBy(() -> quick.render(NESTED_LOOPS_RUN_IF, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The time this render took exceeds the render limit expression-max-time (PT0.1S)");
    }

    @Test
    void shouldNameTheSettingTheTimeLimitCameFrom() {
        // given: the executor's own budget
        var executor = new Expressions(RenderLimits.DEFAULTS.withMaxSteps(Long.MAX_VALUE)
                .withMaxTime(Duration.ofMillis(20), "executor-expression-max-time"));

        // when / then
        assertThatThrownBy(() -> executor.render(NESTED_LOOPS_RUN_IF, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("exceeds the render limit executor-expression-max-time (PT0.02S)");
    }

    @Test
    void shouldKeepSplitAJavaRegularExpression() throws Exception {
        // when / then
        assertThat(expressions.render("{{ 'a,b,,c' | split(',') }} {{ 'a1b22c3' | split('\\d+', 2) }}", Map.of()))
                .isEqualTo("[\"a\",\"b\",\"\",\"c\"] [\"a\",\"b22c3\"]");
    }

    @Test
    void shouldRefuseJavaMethodCalls() {
        // when / then: Pebble calls a public method of a value's class for an attribute or a call it cannot resolve
        for (String template : List.of("{{ s.getClass() }}", "{{ s.matches('(a+)+$') }}", "{{ s.concat(s) }}",
                "{{ l.size() }}", "{{ l.size }}")) {
            assertThatThrownBy(() -> expressions.render(template, Map.of("s", "text", "l", List.of(1))))
                    .as(template)
                    .isInstanceOf(ExpressionException.class)
                    .hasMessageContaining("Calling a Java method is not allowed in expressions");
        }
        assertThatThrownBy(() -> expressions.render("{{ 'a'.repeat(1000000000) }}", Map.of()))
                .isInstanceOf(ExpressionException.class);
    }

    @Test
    void shouldKeepTheLoopVariablesAndMapEntries() throws Exception {
        // given
        Map<String, Object> vars = Map.of("m", Map.of("k", "v"), "l", List.of("x", "y"));

        // when / then
        assertThat(expressions.render("{% for e in m %}{{ e.key }}={{ e.value }}{% endfor %}", vars)).isEqualTo("k=v");
        assertThat(expressions.render("{% for i in l %}{{ loop.index }}{{ loop.first }}{{ loop.last }}{{ loop.length }}"
                + "{{ loop.revindex }} {% endfor %}", vars)).isEqualTo("0truefalse21 1falsetrue20 ");
    }

    @Test
    void shouldFailAStringThatDoublesPastTheStringLimit() {
        // when / then: by '~', by interpolation into a set variable, and by a macro's argument
        assertThatThrownBy(() -> expressions.render("{% set s = 'ab' %}{% for i in range(1, 40) %}{% set s = s ~ s %}"
                + "{% endfor %}{{ s | length }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("A string built by '~' exceeds the render limit expression-max-string-chars (10000000)");
        assertThatThrownBy(() -> expressions.render("{% set s = 'ab' %}{% for i in range(1, 40) %}{% set s = \"#{s}#{s}\" %}"
                + "{% endfor %}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The value set to 's' exceeds the render limit expression-max-string-chars");
        assertThatThrownBy(() -> expressions.render("{% macro d(s) %}{{ d(\"#{s}#{s}\") }}{% endmacro %}{{ d('ab') }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The argument 's' of the macro 'd' exceeds the render limit expression-max-string-chars");
        assertThatThrownBy(() -> expressions.render("{% set s = 'ab' %}{% for i in range(1, 40) %}{% set s = s + s %}"
                + "{% endfor %}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("A string built by '+' exceeds the render limit expression-max-string-chars");
    }

    @Test
    void shouldFailAListThatDoublesPastTheCollectionLimit() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{% set l = [1] %}{% for i in range(1, 30) %}{% set l = l | merge(l) %}"
                + "{% endfor %}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The result of the filter 'merge' (131072 elements) exceeds the render limit "
                        + "expression-max-collection-size (100000)");
        assertThatThrownBy(() -> expressions.render("{% set l = [1] %}{% for i in range(1, 30) %}{% set l = l + l %}"
                + "{% endfor %}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("A list built by '+' (131072 elements) exceeds the render limit expression-max-collection-size");
    }

    @Test
    void shouldBoundTheTextOfAMacroAndOfAFilterTag() {
        // given: text rendered into a macro's or a filter tag's own buffer, out of reach of the output's bound
        Map<String, Object> vars = Map.of("big", "x".repeat(1_000));
        String loop = "{% for i in range(0, 99999) %}{{ big }}{% endfor %}";

        // when / then
        assertThatThrownBy(() -> expressions.render("{% macro m(big) %}" + loop + "{% endmacro %}{{ m(big) | length }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The text a macro, filter or block builds exceeds the render limit expression-max-string-chars");
        assertThatThrownBy(() -> expressions.render("{% filter length %}" + loop + "{% endfilter %}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("expression-max-string-chars");
    }

    @Test
    void shouldMeasureJoinReplaceAndFormatBeforeBuildingTheirText() {
        // given: results far bigger than their parts
        Map<String, Object> vars = Map.of("big", "x".repeat(1_000_000), "many", List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));

        // when / then
        assertThatThrownBy(() -> expressions.render("{{ many | join(big) | length }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The result of the filter 'join' exceeds the render limit expression-max-string-chars");
        assertThatThrownBy(() -> expressions.render("{{ 'aaaaaaaaaaa' | replace({'a': big}) | length }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The result of the filter 'replace' exceeds the render limit expression-max-string-chars");
        assertThatThrownBy(() -> expressions.render("{{ '%0999999999d' | format(1) }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("A width or precision in the filter 'format' exceeds the render limit expression-max-string-chars");
    }

    @Test
    void shouldPrintAListThatSharesABigStringOnlyUpToTheRenderedLimit() {
        // given: 100,000 references to one string of 1,000 characters: 100 MB printed, 800 KB held
        Map<String, Object> vars = Map.of("shared", java.util.Collections.nCopies(100_000, "x".repeat(1_000)));

        // when / then
        assertThatThrownBy(() -> expressions.render("{{ shared }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The rendered text exceeds the render limit expression-max-rendered-chars (10000000)");
        assertThatThrownBy(() -> expressions.render("{{ shared | toJson | length }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The result of the filter 'toJson' exceeds the render limit expression-max-string-chars");
        assertThatThrownBy(() -> expressions.render("{{ ('' ~ shared) | length }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("A string built by '~' exceeds the render limit expression-max-string-chars");
    }

    @Test
    void shouldRenderTemplatesUnderTheLimitsAsBefore() throws Exception {
        // given
        Map<String, Object> vars = Map.of("s", "hello", "l", new java.util.ArrayList<>(List.of(3, 1, 2)),
                "m", Map.of("a", List.of(1, 2)));

        // when
        String rendered = expressions.render("{{ s | upper }} {{ l | sort }} {{ l | join('-') }} {{ s ~ '!' }} {{ 'x' + 1 }}"
                + " {{ l + [4] }} {{ 'abc' | replace({'b': 'X'}) }} {{ '%05d' | format(42) }} {{ m }} {{ m | toJson }}"
                + " {% filter upper %}{% for i in range(1, 3) %}{{ i }}a{% endfor %}{% endfilter %}"
                + " {% macro twice(x) %}{{ x }}{{ x }}{% endmacro %}{{ twice('ab') }}"
                + " {% cache 'key' %}{{ s }}{% endcache %} {% set n = l | length %}{{ n }} {{ missing | default('d') }}", vars);

        // then
        assertThat(rendered).isEqualTo("HELLO [1,2,3] 1-2-3 hello! x1 [1,2,3,4] aXc 00042 {\"a\":[1,2]} {\"a\":[1,2]}"
                + " 1A2A3A abab hello 3 d");
    }

    @Test
    void shouldTurnARecursiveMacroIntoAnExpressionException() {
        // given
        String template = "{% macro loop(n) %}{{ loop(n) }}{% endmacro %}{{ loop(1) }}";

        // when / then
        assertThatThrownBy(() -> expressions.render(template, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("overflowed the stack")
                .hasCauseInstanceOf(StackOverflowError.class);
    }

    @Test
    void shouldTurnADeeplyNestedExpressionIntoAnExpressionException() {
        // given
        String template = "{{ " + "[".repeat(100_000) + "]".repeat(100_000) + " }}";

        // when / then
        assertThatThrownBy(() -> expressions.render(template, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("overflowed the stack");
    }

    @Test
    void shouldTurnAnyOtherErrorIntoAnExpressionException() {
        // given: a variable whose lookup throws an Error
        Map<String, Object> broken = new HashMap<>() {
            @Override
            public Object get(Object key) {
                throw new AssertionError("broken map");
            }

            @Override
            public boolean containsKey(Object key) {
                throw new AssertionError("broken map");
            }
        };

        // when / then
        assertThatThrownBy(() -> expressions.render("{{ v.x }}", Map.of("v", broken)))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("assertion: broken map");
    }

    @Test
    void shouldKeepPebbleRangeSemantics() throws Exception {
        // when / then
        assertThat(expressions.render("{{ range(0, 3) }} {{ 1..2 }} {{ range(5, 1, -2) }} {{ range(3, 1) }}", Map.of()))
                .isEqualTo("[0,1,2,3] [1,2] [5,3,1] []");
        assertThat(expressions.render("{{ range('a', 'c') }}", Map.of())).isEqualTo("[\"a\",\"b\",\"c\"]");
        assertThat(expressions.render("{{ range(0, 99999) | length }}", Map.of())).isEqualTo("100000");
    }

    @Test
    void shouldFailARangeOfMoreThanTheLimit() {
        // when / then
        for (String template : List.of("{{ range(0, 100000) | length }}", "{{ (1..9223372036854775807) | length }}")) {
            assertThatThrownBy(() -> expressions.render(template, Map.of()))
                    .isInstanceOf(ExpressionException.class)
                    .hasMessageContaining("exceeds the render limit expression-max-collection-size (100000)");
        }
    }

    @Test
    void shouldCountRangeElementsWithoutOverflow() {
        // when / then
        assertThat(BoundedRangeFunction.size(0, 99_999, 1)).isEqualTo(100_000);
        assertThat(BoundedRangeFunction.size(10, 0, -3)).isEqualTo(4);
        assertThat(BoundedRangeFunction.size(3, 1, 1)).isZero();
        assertThat(BoundedRangeFunction.size(Long.MAX_VALUE - 5, Long.MAX_VALUE, 100)).isEqualTo(1);
        assertThat(BoundedRangeFunction.size(Long.MIN_VALUE, Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldSpendAStepForEachRangeElement() {
        // given
        String template = "{% for i in range(1, 20) %}{% for j in range(1, 99999) %}{% endfor %}{% endfor %}done";

        // when / then
        assertThatThrownBy(() -> expressions.render(template, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("exceeds the render limit expression-max-steps (1000000)");
    }

    @Test
    void shouldGiveEachRenderAFreshBudget() throws Exception {
        // given: 900,000 range elements, under the budget of one render, over it for two
        String template = "{% for i in range(1, 9) %}{{ range(1, 100000) | length }},{% endfor %}";

        // when / then
        assertThat(expressions.render(template, Map.of())).isEqualTo("100000,".repeat(9));
        assertThat(expressions.render(template, Map.of())).isEqualTo("100000,".repeat(9));
    }

    @Test
    void shouldFailPastTheRenderedSizeLimit() throws Exception {
        // given
        Map<String, Object> vars = Map.of("big", "x".repeat(1_000_000), "list", List.of("y".repeat(1_000_000)));

        // when / then
        assertThat(expressions.render("{% for i in range(1, 10) %}{{ big }}{% endfor %}", vars)).hasSize(10_000_000);
        assertThatThrownBy(() -> expressions.render("{% for i in range(1, 10) %}{{ big }}{% endfor %}.", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The rendered text exceeds the render limit expression-max-rendered-chars (10000000)");
        assertThatThrownBy(() -> expressions.render("{% for i in range(1, 10) %}{{ list }}{% endfor %}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("expression-max-rendered-chars");
    }

    @Test
    void shouldRefuseLimitsThatAreNotPositive() {
        // when / then
        assertThatThrownBy(() -> RenderLimits.DEFAULTS.withMaxSteps(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expression-max-steps");
        assertThatThrownBy(() -> RenderLimits.DEFAULTS.withMaxTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expression-max-time");
    }
}
