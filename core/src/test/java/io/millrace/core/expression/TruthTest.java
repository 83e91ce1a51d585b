package io.millrace.core.expression;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class TruthTest {

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"false", "0", "-0", ""})
    void shouldBeFalseForKestrasFalseTexts(String rendered) {
        // when / then
        assertThat(Truth.isTruthy(rendered)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"true", "1", "False", "FALSE", " false", "false ", "0.0", "00", " ", "no", "null", "[]", "{}"})
    void shouldBeTrueForAnyOtherTextAsItIs(String rendered) {
        // when / then
        assertThat(Truth.isTruthy(rendered)).isTrue();
    }
}
