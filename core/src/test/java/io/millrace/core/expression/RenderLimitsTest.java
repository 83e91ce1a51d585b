package io.millrace.core.expression;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RenderLimitsTest {

    private final Expressions expressions = new Expressions();

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
                .hasMessageContaining("AssertionError: broken map");
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
                    .hasMessageContaining("exceeds the render limit MAX_RANGE_ELEMENTS (100000)");
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
    void shouldFailNestedRangesPastTheRenderBudget() {
        // given
        String template = "{% for i in range(1, 20) %}{% for j in range(1, 99999) %}{% endfor %}{% endfor %}done";

        // when / then
        assertThatThrownBy(() -> expressions.render(template, Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("exceeds the render limit MAX_RANGE_ELEMENTS_PER_RENDER (1000000)");
    }

    @Test
    void shouldGiveEachRenderAFreshRangeBudget() throws Exception {
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
                .hasMessageContaining("The rendered text exceeds the render limit MAX_RENDERED_CHARS (10000000)");
        assertThatThrownBy(() -> expressions.render("{% for i in range(1, 10) %}{{ list }}{% endfor %}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("MAX_RENDERED_CHARS");
    }
}
