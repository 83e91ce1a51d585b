package io.millrace.core.expression;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SecretFunctionTest {

    private static final String VALUE = "s3cr3t-\"pass\"";

    private final Expressions expressions = new Expressions();

    private static SecretSource source(Map<String, String> secrets) {
        return name -> {
            String value = secrets.get(name);
            if (value == null) {
                throw new SecretException("Expected a secret named '" + name + "', but there is none");
            }
            return value;
        };
    }

    @Test
    void shouldResolveASecretThroughTheTaskRunsSecretsAndKeepItToMask() throws Exception {
        // given
        var secrets = new TaskSecrets(source(Map.of("db", VALUE)));
        Map<String, Object> vars = Variables.withSecrets(Map.of("inputs", Map.of()), secrets);

        // when
        String rendered = expressions.render("user:{{ secret('db') }}", vars);

        // then
        assertThat(rendered).isEqualTo("user:" + VALUE);
        assertThat(secrets.mask("said " + VALUE)).isEqualTo("said ******");
    }

    @Test
    void shouldRefuseASecretWhereNoTaskRunsSecretsAreSet() {
        // when / then: a render of the executor or the gateway has no secrets variable
        assertThatThrownBy(() -> expressions.render("{{ secret('db') == 'x' }}", Map.of("inputs", Map.of())))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Expected secret('db') in a task's property, rendered on the worker")
                .hasMessageContaining("where secrets are never resolved");
    }

    @Test
    void shouldNotBeFooledByAVariableOfTheReservedNameThatIsNotTheWorkers() {
        // given: a map from a task record or an input named as the reserved variable
        Map<String, Object> vars = Map.of(Variables.SECRETS, Map.of("db", "x"));

        // when / then
        assertThatThrownBy(() -> expressions.render("{{ secret('db') }}", vars))
                .hasMessageContaining("where secrets are never resolved");
    }

    @Test
    void shouldFailTheRenderWithTheSourcesMessageForAMissingSecret() {
        // given
        Map<String, Object> vars = Variables.withSecrets(Map.of(), new TaskSecrets(source(Map.of())));

        // when / then
        assertThatThrownBy(() -> expressions.render("{{ secret('nope') }}", vars))
                .hasMessageContaining("Expected a secret named 'nope', but there is none");
    }

    @Test
    void shouldRefuseANameThatIsNotAString() {
        // given
        Map<String, Object> vars = Variables.withSecrets(Map.of(), new TaskSecrets(source(Map.of())));

        // when / then
        assertThatThrownBy(() -> expressions.render("{{ secret(42) }}", vars))
                .hasMessageContaining("Expected 'secret' to have a secret's name (a string) as argument, but it has"
                        + " a Long");
    }

    @Test
    void shouldShowNoValueWhenTheSecretsVariableItselfIsPrinted() throws Exception {
        // given: a secret resolved earlier in the same task run
        var secrets = new TaskSecrets(source(Map.of("db", VALUE)));
        Map<String, Object> vars = Variables.withSecrets(Map.of(), secrets);
        expressions.render("{{ secret('db') }}", vars);

        for (String template : List.of("{{ __secrets }}", "{{ __secrets | toJson }}", "{{ __secrets | jq('.') }}",
                "{{ _context['__secrets'] }}", "{{ _context }}", "{{ __secrets.values }}")) {
            // when
            String printed;
            try {
                printed = expressions.render(template, vars);
            } catch (ExpressionException e) {
                printed = e.getMessage();
            }

            // then
            assertThat(printed).as(template).doesNotContain("s3cr3t");
        }
    }
}
