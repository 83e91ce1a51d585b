package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutionRequestTest {

    @Test
    void shouldAcceptAnEmptyBody() {
        // given
        String body = "  ";

        // when
        var request = ExecutionRequest.parse(body);

        // then
        assertThat(request.inputs()).isEmpty();
        assertThat(request.labels()).isEmpty();
    }

    @Test
    void shouldReadInputsAndLabels() {
        // given
        String body = "{\"inputs\": {\"n\": 3, \"tags\": [\"a\"], \"when\": null}, \"labels\": {\"team\": \"core\", \"tier\": 1}}";

        // when
        var request = ExecutionRequest.parse(body);

        // then
        assertThat(request.inputs()).containsEntry("n", 3).containsEntry("tags", java.util.List.of("a")).containsKey("when");
        assertThat(request.labels()).containsExactlyInAnyOrderEntriesOf(Map.of("team", "core", "tier", "1"));
    }

    @Test
    void shouldReadLabelsGivenAsKestraKeyValueList() {
        // given
        String body = "{\"labels\": [{\"key\": \"team\", \"value\": \"core\"}]}";

        // when
        var request = ExecutionRequest.parse(body);

        // then
        assertThat(request.labels()).containsExactly(Map.entry("team", "core"));
    }

    @Test
    void shouldRejectMalformedJsonWithWhereItBroke() {
        // given
        String body = "{\"inputs\": {";

        // when / then
        assertThatThrownBy(() -> ExecutionRequest.parse(body))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.getMessage()).startsWith("Malformed JSON body at line 1");
                });
    }

    @Test
    void shouldListEveryProblemOfAWellFormedButWrongBody() {
        // given
        String body = "{\"input\": {}, \"inputs\": [1], \"labels\": {\"a\": {\"b\": 1}}}";

        // when / then
        assertThatThrownBy(() -> ExecutionRequest.parse(body))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.details()).containsExactly(
                            "Unknown property 'input'; expected 'inputs' and/or 'labels'",
                            "Expected 'inputs' to be a JSON object, but found array",
                            "Expected label 'a' to have a text value, but found object");
                });
    }

    @Test
    void shouldRejectABodyThatIsNotAnObject() {
        // when / then
        assertThatThrownBy(() -> ExecutionRequest.parse("[1, 2]"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getMessage()).contains("found array"));
    }

    @Test
    void shouldReadWaitAndTimeoutParameters() {
        // given
        Duration fallback = Duration.ofSeconds(60);

        // when / then
        assertThat(ExecutionRequest.wait(null)).isFalse();
        assertThat(ExecutionRequest.wait("TRUE")).isTrue();
        assertThat(ExecutionRequest.wait("false")).isFalse();
        assertThat(ExecutionRequest.timeout(null, fallback)).isEqualTo(fallback);
        assertThat(ExecutionRequest.timeout("PT5S", fallback)).isEqualTo(Duration.ofSeconds(5));
        assertThat(ExecutionRequest.timeout("PT1H", fallback)).as("capped at the configured limit").isEqualTo(fallback);
    }

    @Test
    void shouldRejectBadWaitAndTimeoutParameters() {
        // when / then
        assertThatThrownBy(() -> ExecutionRequest.wait("yes"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getMessage()).contains("'wait'"));
        assertThatThrownBy(() -> ExecutionRequest.timeout("5s", Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getMessage()).contains("'timeout'", "'5s'"));
        assertThatThrownBy(() -> ExecutionRequest.timeout("PT0S", Duration.ofSeconds(1)))
                .isInstanceOf(ApiException.class);
    }
}
