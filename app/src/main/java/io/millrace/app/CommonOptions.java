package io.millrace.app;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** Options every role shares. Only options given on the command line override the file and environment. */
final class CommonOptions {
    @Option(names = "--config", description = "YAML configuration file (or MILLRACE_CONFIG)")
    Path configFile;

    @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers (MILLRACE_BOOTSTRAP_SERVERS)")
    String bootstrapServers;

    @Option(names = "--port", description = "HTTP port of the gateway (MILLRACE_PORT, default 8080)")
    Integer port;

    @Option(names = "--partitions", description = "Partitions of the topics a role creates (MILLRACE_PARTITIONS, default 2)")
    Integer partitions;

    @Option(names = "--replication-factor", description = "Replication of the topics a role creates (default 1)")
    Integer replicationFactor;

    @Option(names = "--processing-guarantee", description = "exactly_once_v2 (default) or at_least_once")
    String processingGuarantee;

    @Option(names = "--set", description = "Any setting as key=value, e.g. --set commit-interval-ms=50 "
            + "or --set kafka.producer.linger.ms=2")
    Map<String, String> settings = new LinkedHashMap<>();

    MillraceConfig load(Map<String, String> extra) {
        var given = new LinkedHashMap<String, String>(settings);
        putIfGiven(given, "bootstrap-servers", bootstrapServers);
        putIfGiven(given, "port", port);
        putIfGiven(given, "partitions", partitions);
        putIfGiven(given, "replication-factor", replicationFactor);
        putIfGiven(given, "processing-guarantee", processingGuarantee);
        given.putAll(extra);
        Map<String, String> env = System.getenv();
        Path file = configFile != null ? configFile : env.containsKey("MILLRACE_CONFIG") ? Path.of(env.get("MILLRACE_CONFIG")) : null;
        return ConfigLoader.load(env, given, file);
    }

    private static void putIfGiven(Map<String, String> map, String key, Object value) {
        if (value != null) {
            map.put(key, value.toString());
        }
    }
}
