package io.millrace.app;

import io.millrace.broker.EmbeddedKafkaBroker;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/** Settings for an engine of a test: on the JVM's shared broker, under topics no other test uses. */
final class TestEngines {
    private TestEngines() {
    }

    /**
     * The shared broker, a topic prefix of {@code stem} and a random suffix, {@code stateDir}, and {@code more} as
     * key, value pairs on top.
     */
    static Map<String, String> settings(String stem, Path stateDir, String... more) {
        var settings = new HashMap<String, String>(Map.of(
                "bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(),
                "topic-prefix", stem + UUID.randomUUID().toString().substring(0, 8) + ".",
                "state-dir", stateDir.toString(),
                "management-port", "0"));
        for (int i = 0; i < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        return Map.copyOf(settings);
    }
}
