package io.millrace.core.expression;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TaskSecretsTest {

    private static TaskSecrets resolved(String... values) throws SecretException {
        var secrets = new TaskSecrets(name -> values[Integer.parseInt(name)]);
        for (int i = 0; i < values.length; i++) {
            secrets.resolve(String.valueOf(i));
        }
        return secrets;
    }

    @Test
    void shouldMaskNothingBeforeASecretIsResolved() {
        // when / then
        assertThat(new TaskSecrets(name -> "x").mask("x marks the spot")).isEqualTo("x marks the spot");
    }

    @Test
    void shouldMaskEveryOccurrenceOfTheExactValue() throws Exception {
        // given
        var secrets = resolved("hunter2");

        // when / then
        assertThat(secrets.mask("hunter2, hunter2!")).isEqualTo("******, ******!");
        assertThat(secrets.mask(null)).isNull();
    }

    @Test
    void shouldMaskTheValueAsAJsonStringHoldsIt() throws Exception {
        // given
        var secrets = resolved("a\"b\\c\nd");

        // when / then
        assertThat(secrets.mask("{\"v\":\"a\\\"b\\\\c\\nd\"}")).isEqualTo("{\"v\":\"******\"}");
    }

    @Test
    void shouldMaskTheValueInBase64AndBase64UrlWithOrWithoutPadding() throws Exception {
        // given
        String value = "p>ss?w0rd";
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        var secrets = resolved(value);

        // when / then
        for (String encoded : List.of(Base64.getEncoder().encodeToString(bytes),
                Base64.getUrlEncoder().withoutPadding().encodeToString(bytes))) {
            assertThat(secrets.mask("Authorization: Basic " + encoded)).isEqualTo("Authorization: Basic ******");
        }
    }

    @Test
    void shouldMaskAShortValueItselfButNotItsBase64() throws Exception {
        // given: "ab" in base64 is "YWI", which common text holds
        var secrets = resolved("ab");

        // when / then
        assertThat(secrets.mask("cab YWI")).isEqualTo("c****** YWI");
    }

    @Test
    void shouldMaskNothingForAnEmptyValue() throws Exception {
        // when / then
        assertThat(resolved("").mask("text")).isEqualTo("text");
    }

    @Test
    void shouldMaskASecretThatHoldsAnotherWhole() throws Exception {
        // given
        var secrets = resolved("pass", "password123");

        // when / then
        assertThat(secrets.mask("password123 pass")).isEqualTo("****** ******");
    }

    @Test
    void shouldMaskStringsInsideOutputsKeysIncludedAndLeaveOtherValues() throws Exception {
        // given
        var secrets = resolved("tok3n");
        Map<String, Object> outputs = Map.of("value", "tok3n", "list", List.of("a tok3n", 5),
                "map", Map.of("tok3n", true));

        // when
        Map<String, Object> masked = secrets.maskOutputs(outputs);

        // then
        assertThat(masked).containsEntry("value", "******")
                .containsEntry("list", List.of("a ******", 5))
                .containsEntry("map", Map.of("******", true));
    }
}
