package io.millrace.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The principals of {@code access-file}: each a name, the SHA-256 digests of its tokens (hexadecimal, as
 * {@code printf '%s' "$TOKEN" | sha256sum} prints them) and its grants, a role per namespace prefix:
 *
 * <pre>
 * principals:
 *   - name: team-a
 *     tokens: [a3c61028c8d6e05e4b144ef10b88b66c2653591263b1c20b675aefed46646019]
 *     grants:
 *       company.team-a: editor
 *       "*": viewer
 * </pre>
 *
 * A file that breaks a rule is refused whole, with a message naming the principal and what is wrong; it never quotes a
 * digest.
 */
final class AccessFile {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern DIGEST = Pattern.compile("[0-9a-fA-F]{64}");
    private static final Pattern NAMESPACE = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9._-]*");
    private static final Pattern NAME = Pattern.compile("[\\w.@:-]{1,100}");

    /** Why a file was refused. */
    static final class InvalidAccessFile extends Exception {
        InvalidAccessFile(String message) {
            super(message);
        }
    }

    private AccessFile() {
    }

    /** The principals of a file's text, by the digests of their tokens. */
    static Map<String, Principal> parse(String text) throws InvalidAccessFile {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (IOException e) {
            throw new InvalidAccessFile("Expected YAML, but it does not parse at line "
                    + (e instanceof com.fasterxml.jackson.core.JsonProcessingException p && p.getLocation() != null
                    ? p.getLocation().getLineNr() : 0));
        }
        if (root == null || !root.path("principals").isArray()) {
            throw new InvalidAccessFile("Expected a list 'principals' at the top");
        }
        var byDigest = new LinkedHashMap<String, Principal>();
        var names = new ArrayList<String>();
        for (JsonNode node : root.path("principals")) {
            String name = node.path("name").asText("");
            if (!NAME.matcher(name).matches()) {
                throw new InvalidAccessFile("Expected each principal to have a name of letters, digits and ._@:-"
                        + " (at most 100), but got '" + shorten(name) + "'");
            }
            if (names.contains(name)) {
                throw new InvalidAccessFile("Principal '" + name + "' is named twice");
            }
            names.add(name);
            Principal principal = new Principal(name, grants(name, node.path("grants")));
            if (!node.path("tokens").isArray() || node.path("tokens").isEmpty()) {
                throw new InvalidAccessFile("Principal '" + name + "': expected 'tokens', a list of the SHA-256"
                        + " digests of its tokens");
            }
            for (JsonNode token : node.path("tokens")) {
                String digest = token.asText("");
                if (!DIGEST.matcher(digest).matches()) {
                    throw new InvalidAccessFile("Principal '" + name + "': expected each token to be a SHA-256 digest,"
                            + " 64 hexadecimal digits (printf '%s' \"$TOKEN\" | sha256sum), not the token itself");
                }
                if (byDigest.put(HexFormat.of().formatHex(HexFormat.of().parseHex(digest)), principal) != null) {
                    throw new InvalidAccessFile("Principal '" + name + "': one of its tokens is another principal's"
                            + " too (or listed twice)");
                }
            }
        }
        return byDigest;
    }

    private static List<Principal.Grant> grants(String name, JsonNode grants) throws InvalidAccessFile {
        if (!grants.isObject() || grants.isEmpty()) {
            throw new InvalidAccessFile("Principal '" + name + "': expected 'grants', a role (viewer, runner, editor"
                    + " or admin) by namespace prefix, e.g. company.team: runner");
        }
        var list = new ArrayList<Principal.Grant>();
        for (var grant : (Iterable<Map.Entry<String, JsonNode>>) grants::fields) {
            String prefix = grant.getKey();
            if (!prefix.equals(Principal.EVERY_NAMESPACE) && !NAMESPACE.matcher(prefix).matches()) {
                throw new InvalidAccessFile("Principal '" + name + "': expected a namespace or \"*\" (every"
                        + " namespace), but got '" + shorten(prefix) + "'");
            }
            Role role = Role.of(grant.getValue().asText(""));
            if (role == null) {
                throw new InvalidAccessFile("Principal '" + name + "': expected viewer, runner, editor or admin on '"
                        + prefix + "', but got '" + shorten(grant.getValue().asText("")) + "'");
            }
            list.add(new Principal.Grant(prefix, role));
        }
        return list;
    }

    private static String shorten(String text) {
        return text.length() > 100 ? text.substring(0, 100) + "..." : text;
    }
}
