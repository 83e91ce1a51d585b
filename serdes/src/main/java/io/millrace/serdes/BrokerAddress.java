package io.millrace.serdes;

import io.millrace.config.HostRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.utils.Utils;

/**
 * One entry of a {@code bootstrap.servers} list, read as Kafka's clients read it ({@link Utils#getHost},
 * {@link Utils#getPort}): an optional {@code PROTOCOL://} prefix, a host (brackets around an IPv6 address) and a port
 * number, so {@code SASL_SSL://Kafka.:09092} is host {@code kafka}, port 9092. The host is in lower case, without
 * brackets or a trailing dot ({@link HostRules#name}).
 */
public record BrokerAddress(String host, int port) {

    /** The entry's host and port; empty when Kafka would not read it as a broker address either. */
    public static Optional<BrokerAddress> parse(String entry) {
        String trimmed = entry.trim();
        String host = Utils.getHost(trimmed);
        Integer port = Utils.getPort(trimmed);
        if (host == null || port == null || HostRules.name(host).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new BrokerAddress(HostRules.name(host), port));
    }

    /** The entries of a comma-separated list that read as broker addresses, in order; blank entries skipped. */
    public static List<BrokerAddress> list(String servers) {
        var addresses = new ArrayList<BrokerAddress>();
        for (String entry : servers.split(",")) {
            parse(entry).ifPresent(addresses::add);
        }
        return addresses;
    }

    /** The number of non-blank entries of a comma-separated list. */
    public static int entries(String servers) {
        int count = 0;
        for (String entry : servers.split(",")) {
            count += entry.isBlank() ? 0 : 1;
        }
        return count;
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
