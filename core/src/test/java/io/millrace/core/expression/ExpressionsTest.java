package io.millrace.core.expression;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExpressionsTest {

    private final Expressions expressions = new Expressions();

    private static Map<String, Object> order() {
        Map<String, Object> order = new LinkedHashMap<>();
        order.put("order_id", 1);
        order.put("customer_name", "John Doe");
        order.put("total_price", 4.2);
        return order;
    }

    private static Map<String, Object> variables() {
        return Variables.builder()
                .flow("io.kestra.tests", "return", 3)
                .task("t1", "io.kestra.plugin.core.debug.Return")
                .inputs(Map.of("name", "world", "count", 3))
                .outputs(Map.of("transform", Map.of("value", order())))
                .build();
    }

    @Test
    void shouldReturnPlainStringsUntouched() throws Exception {
        // given
        String plain = "no template here: { } {# #} %}";

        // when
        String rendered = expressions.render(plain, Map.of());

        // then
        assertThat(rendered).isSameAs(plain);
        assertThat(expressions.cachedTemplates()).isZero();
    }

    @Test
    void shouldRenderNullAsNull() throws Exception {
        // when / then
        assertThat(expressions.render(null, Map.of())).isNull();
    }

    @Test
    void shouldRenderVariablesWithKestraNames() throws Exception {
        // when
        String rendered = expressions.render("{{ flow.namespace }}.{{ flow.id }}@{{ flow.revision }} {{ task.id }} hello {{ inputs.name }}", variables());

        // then
        assertThat(rendered).isEqualTo("io.kestra.tests.return@3 t1 hello world");
    }

    @Test
    void shouldFailOnUndefinedAttributeNamingItsPath() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ outputs.missing.value }}", variables()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageStartingWith("Unable to render '{{ outputs.missing.value }}': Missing variable: 'outputs.missing'");
    }

    @Test
    void shouldFailOnUndefinedRootVariable() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ outputs.x.value }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Missing variable: 'outputs'")
                .satisfies(e -> assertThat(((ExpressionException) e).template()).isEqualTo("{{ outputs.x.value }}"));
    }

    @Test
    void shouldNameMissingAttributesByPathInDottedOrBracketForm() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ inputs.name }} {{ inputs.other }}", variables()))
                .hasMessageContaining("Missing variable: 'inputs.other'");
        assertThatThrownBy(() -> expressions.render("{{ outputs['transform'].nope }}", variables()))
                .hasMessageContaining("Missing variable: 'outputs['transform'].nope'");
    }

    @Test
    void shouldNameOnlyTheAttributeWhenThePathIsAmbiguous() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ outputs.transform.nope }} {{ inputs.nope }}", variables()))
                .hasMessageContaining("Missing variable: 'nope' at line 1");
    }

    @Test
    void shouldReportSyntaxErrors() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ inputs.name ", variables()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageStartingWith("Unable to render '{{ inputs.name ': Syntax error:");
    }

    @Test
    void shouldShortenLongTemplatesInMessages() {
        // given
        String template = "{{ missing }}" + "x".repeat(500);

        // when / then
        assertThatThrownBy(() -> expressions.render(template, Map.of()))
                .hasMessageContaining("...': Missing variable: 'missing'")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(220));
    }

    @Test
    void shouldPrintMapsAsCompactJson() throws Exception {
        // when
        String rendered = expressions.render("{{ outputs.transform.value }}", variables());

        // then
        assertThat(rendered).isEqualTo("{\"order_id\":1,\"customer_name\":\"John Doe\",\"total_price\":4.2}");
        assertThat(new ObjectMapper().readValue(rendered, Map.class)).isEqualTo(order());
    }

    @Test
    void shouldPrintListsAndEmptyObjectsAsJson() throws Exception {
        // given
        Map<String, Object> vars = Map.of("inputs", Map.of("list", List.of(1, "a", Map.of("k", true)), "empty", Map.of()));

        // when / then
        assertThat(expressions.render("{{ inputs.list }}", vars)).isEqualTo("[1,\"a\",{\"k\":true}]");
        assertThat(expressions.render("{{ inputs.empty }}", vars)).isEqualTo("{}");
    }

    @Test
    void shouldPrintDatesAsIso8601() throws Exception {
        // given
        Instant start = Instant.parse("2024-12-20T10:15:30.123Z");
        Map<String, Object> vars = Variables.builder()
                .taskRun("tr1", start, 1)
                .put("zoned", ZonedDateTime.of(2024, 1, 2, 3, 4, 5, 0, ZoneId.of("Europe/Paris")))
                .put("nested", Map.of("at", start))
                .build();

        // when / then
        assertThat(expressions.render("{{ taskrun.startDate }}", vars)).isEqualTo("2024-12-20T10:15:30.123Z");
        assertThat(expressions.render("{{ zoned }}", vars)).isEqualTo("2024-01-02T03:04:05+01:00");
        assertThat(expressions.render("{{ nested }}", vars)).isEqualTo("{\"at\":\"2024-12-20T10:15:30.123Z\"}");
    }

    @Test
    void shouldPrintNumbersAsJavaDoes() throws Exception {
        // given
        Map<String, Object> vars = Map.of("l", 5L, "i", 7, "d", 2.5, "whole", 3.0);

        // when / then
        assertThat(expressions.render("{{ l }} {{ i }} {{ d }} {{ whole }} {{ l + i }}", vars)).isEqualTo("5 7 2.5 3.0 12");
    }

    @Test
    void shouldCoalesceUndefinedAndNullValues() throws Exception {
        // given
        Map<String, Object> withNull = new HashMap<>();
        withNull.put("none", null);
        Map<String, Object> vars = Map.of("inputs", withNull);

        // when / then
        assertThat(expressions.render("{{ outputs.not_existing ?? '' }}", Map.of())).isEmpty();
        assertThat(expressions.render("{{ inputs.x.y ?? 'fallback' }}", vars)).isEqualTo("fallback");
        assertThat(expressions.render("{{ inputs.none ?? 'was null' }}", vars)).isEqualTo("was null");
        assertThat(expressions.render("{{ inputs.a ?? inputs.b ?? 'third' }}", vars)).isEqualTo("third");
        assertThat(expressions.render("{{ inputs.x ?? 'a' ~ 'b' }}", vars)).isEqualTo("ab");
        assertThat(expressions.render("{{ inputs.none ??? 'undefined only' }}|{{ inputs.x ??? 'undefined only' }}", vars))
                .isEqualTo("|undefined only");
    }

    @Test
    void shouldKeepPebbleFiltersTestsAndTernary() throws Exception {
        // when / then
        assertThat(expressions.render("{{ inputs.name | upper }}", variables())).isEqualTo("WORLD");
        assertThat(expressions.render("{{ inputs.crash is defined }}", variables())).isEqualTo("false");
        assertThat(expressions.render("{{ inputs.count == 3 ? 'ok' : ko }}", variables())).isEqualTo("ok");
        assertThat(expressions.render("{{ inputs['name'] | default('x') }}", variables())).isEqualTo("world");
        assertThat(expressions.render("{% for i in [1, 2] %}{{ i }}{% endfor %}", variables())).isEqualTo("12");
    }

    @Test
    void shouldNotTrimNewLinesAfterTags() throws Exception {
        // when
        String rendered = expressions.render("a\n{% if true %}\nb\n{% endif %}\nc", Map.of());

        // then
        assertThat(rendered).isEqualTo("a\n\nb\n\nc");
    }

    @Test
    void shouldNotEscapeHtml() throws Exception {
        // when / then
        assertThat(expressions.render("{{ v }}", Map.of("v", "<b>&'\"</b>"))).isEqualTo("<b>&'\"</b>");
    }

    @Test
    void shouldNotLoadIncludesFromFilesOrClassPath() throws Exception {
        // when: with a string loader, an include name is itself the template
        String rendered = expressions.render("{% include 'logback.xml' %}", Map.of());

        // then
        assertThat(rendered).isEqualTo("logback.xml");
    }

    @Test
    void shouldNotLeakSetVariablesIntoTheGivenMap() throws Exception {
        // given
        Map<String, Object> vars = new HashMap<>(Map.of("y", 2));

        // when
        String rendered = expressions.render("{% set x = 1 %}{{ x }}{{ y }}", vars);

        // then
        assertThat(rendered).isEqualTo("12");
        assertThat(vars).containsOnlyKeys("y");
    }

    @Test
    void shouldDenyReflectionThroughTemplates() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ y.getClass() }}", Map.of("y", 2)))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("access to")
                .hasMessageContaining("is denied");
    }

    @Test
    void shouldCacheCompiledTemplates() throws Exception {
        // when
        for (int i = 0; i < 5; i++) {
            expressions.render("{{ inputs.name }}", variables());
        }
        expressions.render("{{ inputs.count }}", variables());

        // then
        assertThat(expressions.cachedTemplates()).isEqualTo(2);
    }

    @Test
    void shouldBoundTheTemplateCache() throws Exception {
        // when
        for (int i = 0; i < Expressions.CACHE_SIZE + 50; i++) {
            expressions.render("{{ " + i + " }}", Map.of());
        }

        // then
        assertThat(expressions.cachedTemplates()).isEqualTo(Expressions.CACHE_SIZE);
    }

    @Test
    void shouldRenderDeepWithoutTouchingKeysOrNonStrings() throws Exception {
        // given
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("{{ inputs.name }}", "{{ inputs.name }}");
        value.put("list", new ArrayList<>(List.of("{{ inputs.count }}", 42, Map.of("deep", "{{ task.id }}"))));
        value.put("flag", true);
        value.put("nothing", null);

        // when
        Object rendered = expressions.renderDeep(value, variables());

        // then
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("{{ inputs.name }}", "world");
        expected.put("list", List.of("3", 42, Map.of("deep", "t1")));
        expected.put("flag", true);
        expected.put("nothing", null);
        assertThat(rendered).isEqualTo(expected).isNotSameAs(value);
        assertThat(value.get("{{ inputs.name }}")).isEqualTo("{{ inputs.name }}");
    }

    @Test
    void shouldFailRenderDeepOnTheFirstBrokenString() {
        // given
        Map<String, Object> value = Map.of("a", List.of("ok", "{{ nope }}"));

        // when / then
        assertThatThrownBy(() -> expressions.renderDeep(value, variables()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Missing variable: 'nope'");
    }

    @Test
    void shouldRenderConcurrently() throws Exception {
        // given
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                results.add(pool.submit(() -> expressions.render("{{ n }}-{{ n % 7 }}", Map.of("n", n))));
            }

            // then
            for (int i = 0; i < results.size(); i++) {
                assertThat(results.get(i).get()).isEqualTo(i + "-" + (i % 7));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
