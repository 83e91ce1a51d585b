package io.millrace.serdes;

import io.millrace.config.HostRules;
import io.millrace.config.MillraceConfig;
import io.millrace.config.TaskReach;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which hosts an {@code http.Request} may reach (docs/security.md). A target's name is looked up once, every address
 * it has is checked, and the request then goes to the checked address itself, so a name that answers differently the
 * second time (DNS rebinding) cannot lead elsewhere. Refused everywhere: link-local and cloud metadata addresses and
 * names. Refused outside standalone: loopback, this machine's own addresses, and the engine's Kafka brokers at their
 * ports. The operator adds rules with {@code task-http-deny} and lifts any with {@code task-http-allow}: allow wins.
 */
public final class HttpTargets {

    /** Where instance metadata (and with it, often, a cloud identity) is served; a laptop may be a cloud VM too. */
    public static final HostRules METADATA = HostRules.of(
            "169.254.0.0/16", // IPv4 link-local: AWS, GCP, Azure, OCI, DigitalOcean... metadata at 169.254.169.254
            "fe80::/10", // IPv6 link-local
            "fd00:ec2::254", // AWS metadata over IPv6
            "fd20:ce::254", // GCP metadata over IPv6 (IPv6-only instances)
            "64:ff9b:1::/48", // NAT64 local-use prefix (RFC 8215): may carry any IPv4 address, 169.254.169.254 too
            "100.100.100.200", // Alibaba Cloud metadata
            "168.63.129.16", // Azure's host agent (WireServer)
            "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal");

    /** This machine: loopback, and 0.0.0.0 and ::, which a connection reaches this machine through. */
    private static final HostRules LOOPBACK = HostRules.of("127.0.0.0/8", "::1", "0.0.0.0/8", "::", "localhost",
            "*.localhost");

    /** Resolves a host name to all its addresses: the system's resolver, or a test's. */
    @FunctionalInterface
    public interface Resolver {
        Resolver SYSTEM = InetAddress::getAllByName;

        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** A checked target: the request goes to {@code address}. */
    public record Target(URI uri, InetAddress address) {
        /** The URI with the checked address in place of the host (path and query kept): what to connect to. */
        public URI direct() {
            String literal = address.getHostAddress();
            if (address instanceof Inet6Address) {
                int scope = literal.indexOf('%');
                literal = "[" + (scope < 0 ? literal : literal.substring(0, scope)) + "]";
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            String port = uri.getPort() == -1 ? "" : ":" + uri.getPort();
            return URI.create(uri.getScheme() + "://" + literal + port + path
                    + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
        }

        /** The Host header of a request to {@link #direct()}: the host and port the URI names. */
        public String host() {
            return uri.getHost() + (uri.getPort() == -1 ? "" : ":" + uri.getPort());
        }
    }

    /** A target the rules refuse; the message says why and which setting would allow it. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    private final HostRules deny;
    private final HostRules allow;
    private final boolean standalone;
    private final List<BrokerAddress> engineBrokers;
    private final Resolver resolver;

    /** @param engineBrokers the engine's {@code bootstrap-servers} entries, as Kafka reads them */
    public HttpTargets(TaskReach reach, boolean standalone, List<String> engineBrokers, Resolver resolver) {
        this.deny = reach.httpDeny();
        this.allow = reach.httpAllow();
        this.standalone = standalone;
        this.engineBrokers = engineBrokers.stream().flatMap(entry -> BrokerAddress.parse(entry).stream()).toList();
        this.resolver = resolver;
    }

    /** The rules of a role apart from standalone (worker): loopback and the engine's brokers refused too. */
    public static HttpTargets forRole(MillraceConfig config) {
        List<String> brokers = List.of(config.bootstrapServers().split(","));
        return new HttpTargets(config.taskReach(), false, brokers, Resolver.SYSTEM);
    }

    /** The rules of standalone: loopback and the engine's ports allowed (it runs on the user's machine). */
    public static HttpTargets forStandalone(MillraceConfig config) {
        return new HttpTargets(config.taskReach(), true, List.of(), Resolver.SYSTEM);
    }

    /**
     * Looks the URI's host up (unless it is an address) and checks each of its addresses.
     *
     * @throws Refused when a rule refuses the name or any of its addresses
     * @throws UnknownHostException when the name has no address
     */
    public Target check(URI uri) throws Refused, UnknownHostException {
        String host = HostRules.name(uri.getHost());
        int port = port(uri);
        InetAddress literal = HostRules.literal(host);
        String nameReason = literal != null ? null : nameReason(host);
        boolean nameAllowed = literal == null && allow.matchesName(host);
        InetAddress[] addresses;
        try {
            addresses = literal != null ? new InetAddress[] {literal} : resolver.resolve(host);
        } catch (UnknownHostException e) {
            if (nameReason != null && !nameAllowed) {
                throw refused(uri.getHost(), null, nameReason, host);
            }
            throw e;
        }
        if (addresses.length == 0) {
            throw new UnknownHostException(host);
        }
        if (nameAllowed) {
            return new Target(uri, addresses[0]);
        }
        for (InetAddress address : addresses) {
            if (allow.matchesAddress(address)) {
                continue;
            }
            if (nameReason != null) {
                throw refused(uri.getHost(), address, nameReason, host);
            }
            String reason = addressReason(address, port);
            if (reason != null) {
                throw refused(uri.getHost(), address, reason, address.getHostAddress() + maskOf(address));
            }
        }
        return new Target(uri, addresses[0]);
    }

    private String nameReason(String host) {
        if (METADATA.matchesName(host)) {
            return "it is a cloud metadata name";
        }
        if (deny.matchesName(host)) {
            return "the setting " + TaskReach.HTTP_DENY + " refuses it";
        }
        if (!standalone && LOOPBACK.matchesName(host)) {
            return "it is this machine (loopback), which tasks may reach only in standalone";
        }
        return null;
    }

    private String addressReason(InetAddress address, int port) {
        for (InetAddress checked : withEmbedded(address)) {
            if (METADATA.matchesAddress(checked)) {
                return "it is a link-local or cloud metadata address";
            }
            if (deny.matchesAddress(checked)) {
                return "the setting " + TaskReach.HTTP_DENY + " refuses it";
            }
            if (!standalone && thisMachine(checked)) {
                return "it is this machine (loopback or one of its addresses), which tasks may reach only in"
                        + " standalone";
            }
            if (!standalone && engineBroker(checked, port)) {
                return "it is a Kafka broker of the engine (bootstrap-servers)";
            }
        }
        return null;
    }

    /** The address, and the IPv4 address an IPv4-compatible (::a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) one carries. */
    private static List<InetAddress> withEmbedded(InetAddress address) {
        var all = new ArrayList<InetAddress>(List.of(address));
        byte[] bytes = address.getAddress();
        if (address instanceof Inet6Address) {
            boolean compatible = true;
            for (int i = 0; i < 12; i++) {
                compatible &= bytes[i] == 0;
            }
            boolean nat64 = bytes[0] == 0 && bytes[1] == 0x64 && bytes[2] == (byte) 0xff && bytes[3] == (byte) 0x9b;
            for (int i = 4; i < 12 && nat64; i++) {
                nat64 = bytes[i] == 0;
            }
            if (compatible || nat64) {
                try {
                    all.add(InetAddress.getByAddress(new byte[] {bytes[12], bytes[13], bytes[14], bytes[15]}));
                } catch (UnknownHostException e) {
                    // four bytes are always an address
                }
            }
        }
        return all;
    }

    /** This machine: loopback (127.0.0.0/8, ::1), 0.0.0.0/8 and ::, or one of its interfaces' addresses. */
    public static boolean thisMachine(InetAddress address) {
        if (LOOPBACK.matchesAddress(address)) {
            return true;
        }
        try {
            return address.isAnyLocalAddress() || NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    private boolean engineBroker(InetAddress address, int port) {
        for (BrokerAddress broker : engineBrokers) {
            if (broker.port() != port) {
                continue;
            }
            try {
                for (InetAddress brokerAddress : resolver.resolve(broker.host())) {
                    if (brokerAddress.equals(address)) {
                        return true;
                    }
                }
            } catch (UnknownHostException e) {
                // a broker that does not resolve is reached by no one
            }
        }
        return false;
    }

    private static int port(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return "https".equals(uri.getScheme().toLowerCase(Locale.ROOT)) ? 443 : 80;
    }

    private static String maskOf(InetAddress address) {
        return address instanceof Inet6Address ? "/128" : "/32";
    }

    private static Refused refused(String host, InetAddress address, String reason, String allowRule) {
        boolean named = address != null && HostRules.literal(host) == null;
        String target = named ? host + " (" + address.getHostAddress() + ")" : host;
        return new Refused("the target " + target + " is not allowed: " + reason + "; the setting "
                + TaskReach.HTTP_ALLOW + " allows it (e.g. --set " + TaskReach.HTTP_ALLOW + "=" + allowRule + ")");
    }
}
