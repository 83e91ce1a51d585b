package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WebhookCallTest {

    @Test
    void shouldDropTheHeadersNamedWhateverTheirCase() {
        // given
        var call = new WebhookCall("{}", Map.of("AUTHORIZATION", List.of("Bearer x"), "cookie", List.of("c=1"),
                "X-Request-Id", List.of("r1")), Map.of());

        // when
        var kept = call.withoutHeaders(Set.of("authorization", "cookie"));

        // then
        assertThat(kept.headers()).containsOnlyKeys("X-Request-Id");
        assertThat(kept.variables().get("headers")).isEqualTo(Map.of("X-Request-Id", List.of("r1")));
        assertThat(call.withoutHeaders(Set.of())).isSameAs(call);
    }
}
