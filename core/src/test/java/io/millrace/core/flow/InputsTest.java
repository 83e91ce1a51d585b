package io.millrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InputsTest {

    private static InputDef required(String id, InputType type) {
        return new InputDef(id, type, true, null, null);
    }

    private static Object resolveOne(InputType type, Object value) throws Inputs.InvalidInputsException {
        return Inputs.resolve(List.of(required("x", type)), Map.of("x", value)).get("x");
    }

    private static List<String> problemsOf(List<InputDef> declared, Map<String, Object> given) {
        var e = catchThrowableOfType(Inputs.InvalidInputsException.class, () -> Inputs.resolve(declared, given));
        assertThat(e).as("expected the inputs to be rejected").isNotNull();
        assertThat(e.getMessage()).isEqualTo(String.join("; ", e.problems()));
        return e.problems();
    }

    @Nested
    class Coercion {

        static List<Arguments> valid() {
            return List.of(
                    Arguments.of(InputType.INT, 42, 42L),
                    Arguments.of(InputType.INT, 42L, 42L),
                    Arguments.of(InputType.INT, 3.0, 3L),
                    Arguments.of(InputType.INT, "42", 42L),
                    Arguments.of(InputType.INT, " -7 ", -7L),
                    Arguments.of(InputType.INT, Long.MAX_VALUE, Long.MAX_VALUE),
                    Arguments.of(InputType.INT, new java.math.BigInteger("-9223372036854775808"), Long.MIN_VALUE),
                    Arguments.of(InputType.INT, new java.math.BigDecimal("5.00"), 5L),
                    Arguments.of(InputType.FLOAT, 1.5, 1.5),
                    Arguments.of(InputType.FLOAT, 2, 2.0),
                    Arguments.of(InputType.FLOAT, "2.25", 2.25),
                    Arguments.of(InputType.BOOLEAN, true, true),
                    Arguments.of(InputType.BOOLEAN, "false", false),
                    Arguments.of(InputType.BOOLEAN, " TRUE ", true),
                    Arguments.of(InputType.JSON, "{\"a\": [1, 2]}", Map.of("a", List.of(1, 2))),
                    Arguments.of(InputType.JSON, "[1, \"b\"]", List.of(1, "b")),
                    Arguments.of(InputType.JSON, "\"text\"", "text"),
                    Arguments.of(InputType.JSON, Map.of("a", 1), Map.of("a", 1)),
                    Arguments.of(InputType.JSON, List.of(1, 2), List.of(1, 2)),
                    Arguments.of(InputType.ARRAY, "[1, 2]", List.of(1, 2)),
                    Arguments.of(InputType.ARRAY, List.of("a"), List.of("a")),
                    Arguments.of(InputType.STRING, "hello", "hello"),
                    Arguments.of(InputType.STRING, 12, "12"),
                    Arguments.of(InputType.STRING, true, "true"),
                    Arguments.of(InputType.DATETIME, "2025-01-02T03:04:05Z", "2025-01-02T03:04:05Z"),
                    Arguments.of(InputType.DATETIME, "2025-01-02T03:04:05.500Z", "2025-01-02T03:04:05.500Z"),
                    Arguments.of(InputType.DATETIME, "2025-01-02T05:04:05+02:00", "2025-01-02T03:04:05Z"),
                    Arguments.of(InputType.DATE, "2025-01-02", "2025-01-02"),
                    Arguments.of(InputType.TIME, "03:04:05", "03:04:05"),
                    Arguments.of(InputType.DURATION, "PT90M", "PT1H30M"),
                    Arguments.of(InputType.ENUM, "A", "A"),
                    Arguments.of(InputType.SECRET, InputCipher.PREFIX + "AAAA", InputCipher.PREFIX + "AAAA"),
                    Arguments.of(InputType.URI, "https://example.org", "https://example.org"),
                    Arguments.of(InputType.EMAIL, "a@example.org", "a@example.org"));
        }

        @ParameterizedTest(name = "{0} from {1}")
        @MethodSource("valid")
        void shouldCoerceValidValue(InputType type, Object given, Object expected) throws Exception {
            // when
            Object resolved = resolveOne(type, given);

            // then
            // (equality also checks the Java type: 42L is not 42, 2.0 is not 2)
            assertThat(resolved).isEqualTo(expected);
        }

        static List<Arguments> invalid() {
            return List.of(
                    Arguments.of(InputType.INT, "forty-two"),
                    Arguments.of(InputType.INT, "4.2"),
                    Arguments.of(InputType.INT, 4.2),
                    Arguments.of(InputType.INT, true),
                    Arguments.of(InputType.INT, List.of(1)),
                    Arguments.of(InputType.INT, "99999999999999999999"),
                    Arguments.of(InputType.INT, new java.math.BigInteger("99999999999999999999")),
                    Arguments.of(InputType.INT, 1e20),
                    Arguments.of(InputType.INT, Double.NaN),
                    Arguments.of(InputType.INT, Double.POSITIVE_INFINITY),
                    Arguments.of(InputType.FLOAT, "1.2.3"),
                    Arguments.of(InputType.FLOAT, Map.of("a", 1)),
                    Arguments.of(InputType.BOOLEAN, "yes"),
                    Arguments.of(InputType.BOOLEAN, 1),
                    Arguments.of(InputType.JSON, "{not json"),
                    Arguments.of(InputType.ARRAY, "{\"a\": 1}"),
                    Arguments.of(InputType.STRING, Map.of("a", 1)),
                    Arguments.of(InputType.STRING, List.of("a")),
                    Arguments.of(InputType.DATETIME, "2025-01-02"),
                    Arguments.of(InputType.DATETIME, "yesterday"),
                    Arguments.of(InputType.DATE, "02/01/2025"),
                    Arguments.of(InputType.TIME, "25:00"),
                    Arguments.of(InputType.DURATION, "90 minutes"));
        }

        @ParameterizedTest(name = "{0} from {1}")
        @MethodSource("invalid")
        void shouldRejectValueOfWrongType(InputType type, Object given) {
            // when
            List<String> problems = problemsOf(List.of(required("x", type)), Map.of("x", given));

            // then
            assertThat(problems).containsExactly(
                    "Expected input 'x' to be " + type + ", but got '" + given + "'");
        }

        @Test
        void shouldRejectWholeNumberBeyondLongRangeInsteadOfWrappingIt() {
            // given: what Jackson gives for {"n": 99999999999999999999} in a request body
            var tooBig = new java.math.BigInteger("99999999999999999999");

            // when
            List<String> problems = problemsOf(List.of(required("n", InputType.INT)), Map.of("n", tooBig));

            // then: not 7766279631452241919 (the low 64 bits), nor Long.MAX_VALUE
            assertThat(problems).containsExactly("Expected input 'n' to be INT, but got '99999999999999999999'");
        }

        @Test
        void shouldAbbreviateLongValuesInMessages() {
            // given
            String longValue = "z".repeat(200);

            // when
            List<String> problems = problemsOf(List.of(required("n", InputType.INT)), Map.of("n", longValue));

            // then
            assertThat(problems).singleElement().asString()
                    .contains("'" + "z".repeat(77) + "...'")
                    .hasSizeLessThan(150);
        }
    }

    @Nested
    class Choices {
        private final InputDef size = new InputDef("size", InputType.SELECT, true, null, null, List.of("S", "M"), false);
        private final InputDef extras = new InputDef("extras", InputType.MULTISELECT, false, null, null,
                List.of("milk", "sugar"), false);

        @Test
        void shouldTakeOneOfTheValuesOfASelectAndSomeOfAMultiselect() throws Exception {
            // when
            var resolved = Inputs.resolve(List.of(size, extras), Map.of("size", "M", "extras", List.of("sugar", "milk")));

            // then
            assertThat(resolved).containsEntry("size", "M").containsEntry("extras", List.of("sugar", "milk"));
            assertThat(Inputs.resolve(List.of(size, extras), Map.of("size", "S", "extras", "[\"milk\"]")))
                    .containsEntry("extras", List.of("milk"));
            assertThat(Inputs.resolve(List.of(size, extras), Map.of("size", "S", "extras", "milk")))
                    .containsEntry("extras", List.of("milk"));
        }

        @Test
        void shouldRefuseAValueNotAmongTheChoicesUnlessCustomValuesAreAllowed() throws Exception {
            // when
            List<String> problems = problemsOf(List.of(size, extras), Map.of("size", "XL", "extras", List.of("milk", "salt")));

            // then
            assertThat(problems).containsExactly("Expected input 'size' (SELECT) to be one of [S, M], but got 'XL'",
                    "Expected input 'extras' (MULTISELECT) to be some of [milk, sugar], but got '[milk, salt]'");
            var custom = new InputDef("size", InputType.SELECT, true, null, null, List.of("S", "M"), true);
            assertThat(Inputs.resolve(List.of(custom), Map.of("size", "XL"))).containsEntry("size", "XL");
        }
    }

    @Nested
    class Presence {

        @Test
        void shouldFillInDefaultsAndCoerceThem() throws Exception {
            // given
            var declared = List.of(
                    new InputDef("name", InputType.STRING, true, "world", null),
                    new InputDef("count", InputType.INT, true, "3", null),
                    new InputDef("flag", InputType.BOOLEAN, false, false, null));

            // when
            Map<String, Object> resolved = Inputs.resolve(declared, Map.of());

            // then
            assertThat(resolved).containsExactly(
                    Map.entry("name", "world"), Map.entry("count", 3L), Map.entry("flag", false));
        }

        @Test
        void shouldPreferGivenValueOverDefault() throws Exception {
            // given
            var declared = List.of(new InputDef("name", InputType.STRING, true, "world", null));

            // when / then
            assertThat(Inputs.resolve(declared, Map.of("name", "you"))).containsExactly(Map.entry("name", "you"));
        }

        @Test
        void shouldLeaveOutOptionalInputWithoutValue() throws Exception {
            // given
            var declared = List.of(new InputDef("maybe", InputType.INT, false, null, null));

            // when / then
            assertThat(Inputs.resolve(declared, Map.of())).isEmpty();
        }

        @Test
        void shouldKeepDeclarationOrder() throws Exception {
            // given
            var declared = List.of(required("b", InputType.STRING), required("a", InputType.STRING),
                    required("c", InputType.STRING));

            // when / then
            assertThat(Inputs.resolve(declared, Map.of("a", "1", "c", "3", "b", "2")).keySet())
                    .containsExactly("b", "a", "c");
        }

        @Test
        void shouldNameMissingRequiredInput() {
            // given
            var declared = List.of(required("count", InputType.INT));

            // when / then
            assertThat(problemsOf(declared, Map.of()))
                    .containsExactly("Expected input 'count' (INT) to be given, but it is missing");
        }

        @Test
        void shouldTreatExplicitNullAsMissing() {
            // given
            var declared = List.of(required("count", InputType.INT));
            var given = new HashMap<String, Object>();
            given.put("count", null);

            // when / then
            assertThat(problemsOf(declared, given))
                    .containsExactly("Expected input 'count' (INT) to be given, but it is missing");
        }

        @Test
        void shouldNameUnknownInputsAndDeclaredOnes() {
            // given
            var declared = List.of(required("b", InputType.STRING), required("a", InputType.STRING));

            // when
            List<String> problems = problemsOf(declared, Map.of("a", "1", "b", "2", "zeta", 1, "alpha", 2));

            // then
            assertThat(problems).containsExactly(
                    "Unknown input 'alpha'; the flow declares [a, b]",
                    "Unknown input 'zeta'; the flow declares [a, b]");
        }

        @Test
        void shouldSayWhenTheFlowDeclaresNoInputs() {
            // when / then
            assertThat(problemsOf(List.of(), Map.of("x", 1)))
                    .containsExactly("Unknown input 'x'; the flow declares no inputs");
        }

        @Test
        void shouldReportEveryProblemAtOnce() {
            // given
            var declared = List.of(required("count", InputType.INT), required("flag", InputType.BOOLEAN));

            // when
            List<String> problems = problemsOf(declared, Map.of("flag", "maybe", "extra", 1));

            // then
            assertThat(problems).containsExactly(
                    "Unknown input 'extra'; the flow declares [count, flag]",
                    "Expected input 'count' (INT) to be given, but it is missing",
                    "Expected input 'flag' to be BOOLEAN, but got 'maybe'");
        }
    }

    @Nested
    class SecretInputs {

        @Test
        void shouldRefuseSecretInputGivenInClearWithoutQuotingIt() {
            // when
            List<String> problems = problemsOf(List.of(required("password", InputType.SECRET)),
                    Map.of("password", "hunter2-value"));

            // then
            assertThat(problems).singleElement().asString()
                    .startsWith("Expected input 'password' (SECRET) to be encrypted by the gateway")
                    .doesNotContain("hunter2-value");
        }

        @Test
        void shouldRefuseEncryptedValueInOtherInput() {
            // when
            List<String> problems = problemsOf(List.of(required("name", InputType.STRING)),
                    Map.of("name", InputCipher.PREFIX + "AAAA"));

            // then
            assertThat(problems).containsExactly("Expected input 'name' (STRING) not to hold an encrypted value,"
                    + " which only a SECRET input may hold");
        }

        @Test
        void shouldRedactSecretInputsGivenInClearOnly() {
            // given
            var declared = List.of(required("a", InputType.SECRET), required("b", InputType.SECRET),
                    required("c", InputType.STRING));
            String encrypted = InputCipher.PREFIX + "AAAA";

            // when
            Map<String, Object> redacted = Inputs.redacted(declared, Map.of("a", "clear", "b", encrypted, "c", "x"));

            // then
            assertThat(redacted).containsExactlyInAnyOrderEntriesOf(Map.of("a", "******", "b", encrypted, "c", "x"));
        }
    }
}
