package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.serdes.avro.FlowRecord;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class FlowOverlayTest {
    private final FlowOverlay overlay = new FlowOverlay();

    @Test
    void shouldAnswerTheProducedRevisionUntilTheStoreHasIt() {
        // given
        overlay.remember(flow(2));

        // when
        var beforeStore = overlay.latest("ns", "f", () -> Optional.of(flow(1)));
        var afterStore = overlay.latest("ns", "f", () -> Optional.of(flow(2)));

        // then
        assertThat(beforeStore).get().extracting(FlowRecord::getRevision).isEqualTo(2);
        assertThat(afterStore).get().extracting(FlowRecord::getRevision).isEqualTo(2);
        assertThat(overlay.size()).isZero();
    }

    @Test
    void shouldForgetARevisionOnceTheStoreReadsIt() {
        // given
        overlay.remember(flow(1));

        // when
        overlay.caughtUp(flow(1));

        // then
        assertThat(overlay.size()).isZero();
        assertThat(overlay.latest("ns", "f", Optional::empty)).isEmpty();
    }

    @Test
    void shouldKeepANewerRevisionWhenAnOlderOneReachesTheStore() {
        // given
        overlay.remember(flow(3));

        // when
        overlay.caughtUp(flow(2));

        // then
        assertThat(overlay.latest("ns", "f", Optional::empty)).get().extracting(FlowRecord::getRevision).isEqualTo(3);
    }

    @Test
    void shouldAnswerOurRevisionWhenTheStoreCatchesUpRightAfterItIsRead() {
        // given: revision 2 produced; the store has revision 1, and stores 2 (dropping ours) right after it is read
        overlay.remember(flow(2));
        var store = new AtomicReference<>(Optional.of(flow(1)));
        Supplier<Optional<FlowRecord>> read = () -> {
            Optional<FlowRecord> seen = store.get();
            store.set(Optional.of(flow(2)));
            overlay.caughtUp(flow(2));
            return seen;
        };

        // when
        var latest = overlay.latest("ns", "f", read);

        // then: never the older revision, which a deploy would take for the current one
        assertThat(latest).get().extracting(FlowRecord::getRevision).isEqualTo(2);
    }

    private static FlowRecord flow(int revision) {
        return new FlowRecord("ns", "f", revision, "id: f", Instant.EPOCH, false);
    }
}
