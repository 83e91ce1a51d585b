package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.broker.EmbeddedKafkaBroker;
import java.time.Duration;

/** What the triggers' tests on the real broker share. */
final class TriggerTests {
    private TriggerTests() {
    }

    interface Check {
        boolean holds() throws Exception;
    }

    /** The test JVM's broker. */
    static String broker() {
        return EmbeddedKafkaBroker.shared().bootstrapServers();
    }

    /** Checks every 50 ms until the condition holds; fails after 60 s. */
    static void await(Check condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.holds()) {
            assertThat(System.nanoTime()).as("waited 60 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
