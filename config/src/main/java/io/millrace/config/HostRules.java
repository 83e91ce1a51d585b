package io.millrace.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Network targets as an operator lists them in one setting, comma-separated: CIDR blocks ({@code 10.0.0.0/8},
 * {@code fd00::/8}), addresses ({@code 127.0.0.2}: one address), host names ({@code api.example.com}) and host
 * patterns ({@code *.example.com}: any name under it, not the name itself). Names match without regard to case or a
 * trailing dot. Reading a list never looks a name up: names are matched as names, addresses as addresses.
 */
public final class HostRules {
    public static final HostRules NONE = new HostRules(List.of(), List.of(), List.of(), "");

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");
    private static final Pattern NAME = Pattern.compile("[a-z0-9_]([a-z0-9_-]{0,62})(\\.[a-z0-9_]([a-z0-9_-]{0,62}))*");

    private final List<Block> blocks;
    private final List<String> names;
    private final List<String> suffixes;
    private final String text;

    private HostRules(List<Block> blocks, List<String> names, List<String> suffixes, String text) {
        this.blocks = List.copyOf(blocks);
        this.names = List.copyOf(names);
        this.suffixes = List.copyOf(suffixes);
        this.text = text;
    }

    /** The rules of a setting's value; a rule that is none of the forms above stops with a message naming it. */
    public static HostRules parse(String setting, String value) {
        var blocks = new ArrayList<Block>();
        var names = new ArrayList<String>();
        var suffixes = new ArrayList<String>();
        var kept = new ArrayList<String>();
        for (String entry : value.split(",")) {
            String rule = entry.trim();
            if (rule.isEmpty()) {
                continue;
            }
            kept.add(rule);
            Block block = block(rule);
            if (block != null) {
                blocks.add(block);
            } else if (rule.startsWith("*.") && isName(name(rule.substring(2)))) {
                suffixes.add("." + name(rule.substring(2)));
            } else if (isName(name(rule))) {
                names.add(name(rule));
            } else {
                throw new ConfigException("Expected " + setting + " to be CIDR blocks (10.0.0.0/8, fd00::/8),"
                        + " addresses, host names or host patterns (*.example.com) separated by commas, but '" + rule
                        + "' is none");
            }
        }
        return new HostRules(blocks, names, suffixes, String.join(",", kept));
    }

    /** Rules written in the code (the defaults); a rule that does not read is a bug. */
    public static HostRules of(String... rules) {
        return parse("the built-in rules", String.join(",", rules));
    }

    /** A host name (not an address) in lower case, without brackets or a trailing dot. */
    public static String name(String host) {
        String name = host.trim().toLowerCase(Locale.ROOT);
        if (name.startsWith("[") && name.endsWith("]")) {
            name = name.substring(1, name.length() - 1);
        }
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    /**
     * The address a host written as an address literal ({@code 10.0.0.1}, {@code ::1}, {@code [::1]}) stands for,
     * without any lookup; null when it is a name.
     */
    public static InetAddress literal(String host) {
        String text = name(host);
        if (IPV4.matcher(text).matches()) {
            byte[] bytes = new byte[4];
            String[] parts = text.split("\\.");
            for (int i = 0; i < 4; i++) {
                int part = Integer.parseInt(parts[i]);
                if (part > 255) {
                    return null;
                }
                bytes[i] = (byte) part;
            }
            return address(bytes);
        }
        if (IPV6.matcher(text).matches()) {
            try {
                // only hexadecimal digits, colons and dots: read as a literal, never looked up
                return InetAddress.getByName(text);
            } catch (UnknownHostException e) {
                return null;
            }
        }
        return null;
    }

    public boolean isEmpty() {
        return blocks.isEmpty() && names.isEmpty() && suffixes.isEmpty();
    }

    /** Whether a host name (as written in a URL) is one of the names or under one of the patterns. */
    public boolean matchesName(String host) {
        String name = name(host);
        return names.contains(name) || suffixes.stream().anyMatch(name::endsWith);
    }

    public boolean matchesAddress(InetAddress address) {
        return blocks.stream().anyMatch(block -> block.contains(address));
    }

    /** The rules as the setting gave them. */
    @Override
    public String toString() {
        return text;
    }

    /** Equal when written alike: the same rules in the same order. */
    @Override
    public boolean equals(Object other) {
        return other instanceof HostRules rules && rules.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    private static boolean isName(String name) {
        return name.length() <= 253 && NAME.matcher(name).matches() && literal(name) == null
                && !IPV4.matcher(name).matches();
    }

    private static Block block(String rule) {
        int slash = rule.indexOf('/');
        InetAddress address = literal(slash < 0 ? rule : rule.substring(0, slash));
        if (address == null) {
            return null;
        }
        int bits = address.getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(rule.substring(slash + 1).trim());
            } catch (NumberFormatException e) {
                return null;
            }
            if (prefix < 0 || prefix > bits) {
                return null;
            }
        }
        return new Block(address.getAddress(), prefix);
    }

    private static InetAddress address(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    /** The addresses whose first {@code prefix} bits are those of {@code bytes}. */
    private record Block(byte[] bytes, int prefix) {
        boolean contains(InetAddress address) {
            byte[] other = address.getAddress();
            if (other.length != bytes.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int mask = 0x80 >> (bit % 8);
                if ((other[bit / 8] & mask) != (bytes[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }
}
