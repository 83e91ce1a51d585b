package io.millrace.core.expression;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JqFilterTest {

    private final Expressions expressions = new Expressions();
    /** The default step budget and a long time budget, so that steps, not the clock, decide on a slow machine. */
    private final Expressions defaultSteps = new Expressions(RenderLimits.DEFAULTS.withMaxTime(Duration.ofMinutes(5)));

    /** The corpus flow each-object-in-list: the Return task under a Switch, in the loop over a mixed list. */
    private static final String EACH_OBJECT_IN_LIST_FORMAT =
            "{{task.id}} > JSON > {{ parent.taskrun.value | jq('.key') }} > {{ parent.taskrun.value | jq('.value') }}";

    private static Map<String, Object> inLoopOver(String iterationValue) {
        return Variables.builder()
                .task("json", "io.kestra.plugin.core.debug.Return")
                .put("parent", Map.of("taskrun", Map.of("value", iterationValue)))
                .build();
    }

    @Test
    void shouldRenderTheEachObjectInListCorpusShapes() throws Exception {
        // given: ForEach exposes object values as JSON text
        Map<String, Object> flat = inLoopOver("{\"key\":\"my-key\",\"value\":\"my-value\"}");
        Map<String, Object> nested = inLoopOver("{\"key\":\"my-complex\",\"value\":{\"sub\":1,\"bool\":true}}");

        // when / then
        assertThat(expressions.render(EACH_OBJECT_IN_LIST_FORMAT, flat))
                .isEqualTo("json > JSON > [\"my-key\"] > [\"my-value\"]");
        assertThat(expressions.render(EACH_OBJECT_IN_LIST_FORMAT, nested))
                .isEqualTo("json > JSON > [\"my-complex\"] > [{\"sub\":1,\"bool\":true}]");
    }

    @Test
    void shouldReturnEveryEmittedValueAsAList() throws Exception {
        // given
        Map<String, Object> vars = Map.of("v", Map.of("list", List.of(1, 2, 3)));

        // when / then
        assertThat(expressions.render("{{ v | jq('.list[]') }}", vars)).isEqualTo("[1,2,3]");
        assertThat(expressions.render("{{ v | jq('.list[0]') | first }}", vars)).isEqualTo("1");
        assertThat(expressions.render("{{ v | jq('.missing') }}", vars)).isEqualTo("[null]");
        assertThat(expressions.render("{{ v | jq('.list[] | select(. > 5)') }}", vars)).isEqualTo("[]");
    }

    @Test
    void shouldTakeMapsAsTheyAreWithDatesAsIsoText() throws Exception {
        // given
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("at", Instant.parse("2024-12-20T10:15:30Z"));
        value.put("float", 1.5);
        value.put("map", Map.of("k", "v"));
        Map<String, Object> vars = Map.of("v", value);

        // when / then
        assertThat(expressions.render("{{ v | jq('.at') | first }}", vars)).isEqualTo("2024-12-20T10:15:30Z");
        assertThat(expressions.render("{{ v | jq('.float') | first }}", vars)).isEqualTo("1.5");
        assertThat(expressions.render("{% set m = v | jq('.map') | first %}{{ m.k }}", vars)).isEqualTo("v");
    }

    @Test
    void shouldParseAStringInputAsJson() throws Exception {
        // when / then
        assertThat(expressions.render("{{ '[1, 2]' | jq('map(. * 10)') }}", Map.of())).isEqualTo("[[10,20]]");
        assertThatThrownBy(() -> expressions.render("{{ 'value 1' | jq('.key') }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Expected the input of 'jq' to be JSON text, but it is not");
    }

    @Test
    void shouldGiveNullForANullInput() throws Exception {
        // given
        Map<String, Object> vars = new HashMap<>();
        vars.put("v", null);

        // when
        String rendered = expressions.render("[{{ v | jq('.a') }}]", vars);

        // then
        assertThat(rendered).isEqualTo("[]");
    }

    @Test
    void shouldFailOnAnInvalidProgram() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ '{}' | jq('.[') }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Invalid jq '.['");
        assertThatThrownBy(() -> expressions.render("{{ '{}' | jq('error(\"boom\")') }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("jq 'error(\"boom\")' failed");
    }

    @Test
    void shouldCompileEachProgramOnce() {
        // given: called as a render calls it
        JqFilter jq = new JqFilter();
        RenderBudget.start(RenderLimits.DEFAULTS);

        // when
        for (int i = 0; i < 3; i++) {
            jq.apply("[1, 2]", Map.of("expression", ".[0]"), null, null, 1);
        }
        Object last = jq.apply("[1, 2]", Map.of("expression", ".[1]"), null, null, 1);

        // then
        assertThat(last).isEqualTo(List.of(2));
        assertThat(jq.cachedPrograms()).isEqualTo(2);
    }

    @Test
    @Timeout(60)
    void shouldSpendAStepForEachValueOfJqRange() throws Exception {
        // when / then: the values a program never emits count too
        assertThat(expressions.render("{{ 1 | jq('[range(5)] | length') }}", Map.of())).isEqualTo("[5]");
        for (String program : List.of("[range(1e12)] | length", "last(range(1e12))", "reduce range(1e12) as $x (0; .)",
                "try last(range(1e12)) catch 0")) {
            assertThatThrownBy(() -> defaultSteps.render("{{ 1 | jq('" + program + "') }}", Map.of()))
                    .as(program)
                    .isInstanceOf(ExpressionException.class)
                    .hasMessageContaining("exceeds the render limit expression-max-steps (1000000)");
        }
    }

    @Test
    @Timeout(60)
    void shouldSpendAStepForEachRoundOfAJqLoop() {
        // given: loops of builtins that emit nothing while they go round (jackson-jq's jq 1.6 has no repeat); a small
        // budget, as each round of these recursive builtins also deepens the stack
        var fewSteps = new Expressions(RenderLimits.DEFAULTS.withMaxSteps(100).withMaxTime(Duration.ofMinutes(5)));

        // when / then
        for (String program : List.of("until(. > 1e9; . + 1)", "[limit(1e9; recurse(. + 1))] | length",
                "[while(. < 1e9; . + 1)] | length")) {
            assertThatThrownBy(() -> fewSteps.render("{{ 1 | jq('" + program + "') }}", Map.of()))
                    .as(program)
                    .isInstanceOf(ExpressionException.class)
                    .hasMessageContaining("expression-max-steps (100)");
        }
    }

    @Test
    @Timeout(60)
    void shouldSpendStepsOnLoopsOfOperatorsAlone() throws Exception {
        // given: 1,000 values; the programs below call no builtin, and each would take 10^9 rounds or more
        Map<String, Object> vars = Map.of("values", java.util.stream.IntStream.range(0, 1_000).boxed().toList());

        // when / then: a small program still renders as before
        assertThat(expressions.render("{{ values | jq('[.[] as $a | select($a < 3) | $a * 2]') }}", vars))
                .isEqualTo("[[0,2,4]]");
        assertThat(expressions.render("{{ {'a': {'b': [1, 2]}} | jq('.a.b[1], (.a | keys), {x: .a.b[0]}') }}", Map.of()))
                .isEqualTo("[2,[\"b\"],{\"x\":1}]");
        for (String program : List.of("[.[] as $a | .[] as $b | .[] as $c | $a] | length",
                "[.[]] as $x | [$x[] as $a | $x[] as $b | $x[] as $c | $a + $b + $c] | length",
                "reduce (.[] as $a | .[] as $b | .[]) as $c (0; . + $c)")) {
            assertThatThrownBy(() -> defaultSteps.render("{{ values | jq('" + program + "') }}", vars))
                    .as(program)
                    .isInstanceOf(ExpressionException.class)
                    .hasMessageContaining("exceeds the render limit expression-max-steps (1000000)");
        }
    }

    @Test
    @Timeout(60)
    void shouldBoundWhatJqOperatorsBuild() {
        // when / then: each program takes a few dozen steps, and would build gigabytes
        assertThatThrownBy(() -> expressions.render("{{ 1 | jq('reduce range(40) as $i (\"ab\"; . + .) | length') }}",
                Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("A string jq built")
                .hasMessageContaining("expression-max-string-chars (10000000)");
        assertThatThrownBy(() -> expressions.render("{{ 1 | jq('reduce range(40) as $i ([1]; . + .) | length') }}",
                Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("A list or object jq built")
                .hasMessageContaining("expression-max-collection-size (100000)");
        assertThatThrownBy(() -> expressions.render("{{ 1 | jq('reduce range(40) as $i (1; [., .])') }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("The value jq emitted")
                .hasMessageContaining("expression-max-string-chars (10000000)");
    }

    @Test
    @Timeout(60)
    void shouldStopACatastrophicJqRegularExpressionAtTheTimeLimit() {
        // given: joni takes a minute over 28 a's and a b
        var quick = new Expressions(RenderLimits.DEFAULTS.withMaxTime(Duration.ofMillis(200)));
        Map<String, Object> vars = Map.of("text", "a".repeat(28) + "b");

        // when / then
        assertThatThrownBy(() -> quick.render("{{ text | toJson | jq('test(\"(a+)+$\")') }}", vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("exceeds the render limit expression-max-time (PT0.2S)");
    }

    @Test
    void shouldKeepJqRegularExpressions() throws Exception {
        // given
        Map<String, Object> vars = Map.of("text", "\"été, abcb\"");

        // when
        String rendered = expressions.render("{{ text | jq('[test(\"B\"; \"i\"), ([match(\"(?<x>b)|(c)\"; \"g\")] | map(.offset)),"
                + " capture(\"(?<w>[a-z]+)$\"), [scan(\"[bc]\")], [splits(\", \")], sub(\"(?<x>b)\"; \"[\\(.x)]\"),"
                + " gsub(\"b\"; \"B\"), ([match(\"(a)|(z)\").captures[] | .offset])]') }}", vars);

        // then: offsets count code points
        assertThat(rendered).isEqualTo("[[true,[6,7,8],{\"w\":\"abcb\"},[\"b\",\"c\",\"b\"],[\"été\",\"abcb\"],"
                + "\"été, a[b]cb\",\"été, aBcB\",[5,-1]]]");
    }

    @Test
    void shouldBoundTheValuesOneJqCallEmits() {
        // when / then: with time to spare, the count of values stops it (a busy machine may take 100 ms to get there)
        assertThatThrownBy(() -> defaultSteps.render("{{ 1 | jq('range(100000), range(100000)') }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("exceeds the render limit expression-max-jq-results (100000)");
    }
}
