package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import org.junit.jupiter.api.Test;

class IdsTest {

    @Test
    void shouldMakeDistinct22CharacterUrlSafeIds() {
        // given
        var ids = new HashSet<String>();

        // when
        for (int i = 0; i < 1_000; i++) {
            ids.add(Ids.newExecutionId());
        }

        // then
        assertThat(ids).hasSize(1_000).allSatisfy(id -> assertThat(id).matches("[A-Za-z0-9_-]{22}"));
    }
}
