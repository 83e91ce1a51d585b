package io.millrace.core.expression;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonFunctionsTest {

    private final Expressions expressions = new Expressions();

    @Test
    void shouldWriteAnyValueAsJsonWithToJson() throws Exception {
        // given
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("s", "text");
        value.put("n", 1.5);
        value.put("list", List.of(1, true));
        value.put("at", Instant.parse("2024-12-20T10:15:30Z"));
        Map<String, Object> vars = Map.of("v", value);

        // when / then
        assertThat(expressions.render("{{ v | toJson }}", vars))
                .isEqualTo("{\"s\":\"text\",\"n\":1.5,\"list\":[1,true],\"at\":\"2024-12-20T10:15:30Z\"}");
        assertThat(expressions.render("{{ v.s | toJson }}|{{ v.n | toJson }}|{{ null | toJson }}", vars))
                .isEqualTo("\"text\"|1.5|null");
    }

    @Test
    void shouldTreatTheJsonFilterAsToJson() throws Exception {
        // when
        String rendered = expressions.render("{{ 'a\"b' | json }}", Map.of());

        // then
        assertThat(rendered).isEqualTo("\"a\\\"b\"");
    }

    @Test
    void shouldParseJsonTextWithFromJsonAndJsonFunctions() throws Exception {
        // when / then
        assertThat(expressions.render("{{ fromJson('{\"a\": [{\"b\": 666}, 2]}').a[0].b }}", Map.of())).isEqualTo("666");
        assertThat(expressions.render("{{ json('[1, 2, 3]')[2] }}", Map.of())).isEqualTo("3");
        assertThat(expressions.render("{{ fromJson('{\"z\":1,\"a\":{}}') }}", Map.of())).isEqualTo("{\"z\":1,\"a\":{}}");
        assertThat(expressions.render("{{ fromJson(null) }}", Map.of())).isEmpty();
    }

    @Test
    void shouldFailFromJsonOnTextThatIsNotJson() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ fromJson('{not: json}') }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Invalid JSON in 'fromJson'");
        assertThatThrownBy(() -> expressions.render("{{ fromJson() }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Expected 'fromJson' to have an argument, but it has none");
        assertThatThrownBy(() -> expressions.render("{{ fromJson(3) }}", Map.of()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Expected 'fromJson' to have a string argument, but it is a Long");
    }

    @Test
    void shouldTellJsonStringsAsKestraDoes() throws Exception {
        // given
        Map<String, Object> vars = new HashMap<>();
        List<String> json = List.of("{\"key\": \"my-key\"}", "[1]", "12", "-0.5", "true", "null", "\"quoted\"", "", "  ", "{} trailing");
        List<String> notJson = List.of("value 1", "abc", "{key: 1}", "'single'", "12abc", "[1,");
        vars.put("json", json);
        vars.put("notJson", notJson);

        // when
        String rendered = expressions.render(
                "{% for v in json %}{{ v is json }},{% endfor %}|{% for v in notJson %}{{ v is json }},{% endfor %}", vars);

        // then
        assertThat(rendered).isEqualTo("true,".repeat(json.size()) + "|" + "false,".repeat(notJson.size()));
    }

    @Test
    void shouldFailTheJsonTestOnAnythingButAString() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ v is json }}", Map.of("v", Map.of("a", 1))))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Expected the 'json' test to be given a string, but it was given a");
    }
}
