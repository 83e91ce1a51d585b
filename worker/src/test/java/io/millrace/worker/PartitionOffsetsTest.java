package io.millrace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PartitionOffsetsTest {

    @Test
    void shouldCommitOnlyUpToTheFirstRecordNotYetDone() {
        // given
        var offsets = new PartitionOffsets();
        offsets.received(10);
        offsets.received(11);
        offsets.received(13); // 12 was a transaction marker

        // when
        offsets.done(11);
        offsets.done(13);

        // then
        assertThat(offsets.advance()).hasValue(10);
        assertThat(offsets.advance()).isEmpty();
    }

    @Test
    void shouldCommitPastTheHighestRecordOnceAllAreDone() {
        // given
        var offsets = new PartitionOffsets();
        offsets.received(10);
        offsets.received(13);
        offsets.done(13);
        offsets.advance();

        // when
        offsets.done(10);

        // then
        assertThat(offsets.position()).isEqualTo(14);
        assertThat(offsets.advance()).hasValue(14);
    }
}
