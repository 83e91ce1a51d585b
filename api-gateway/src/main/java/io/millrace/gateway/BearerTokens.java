package io.millrace.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.ApiAccess;
import io.millrace.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens the API accepts, and whose they are: each {@code auth-tokens} token is an admin on every
 * namespace (named {@code admin-} and the first 8 digits of its digest), and each token of {@code access-file} is its
 * principal's.
 * Only SHA-256 digests are kept, and a presented token is compared through its digest with
 * {@link MessageDigest#isEqual} against every known one: the time taken depends neither on how much of a token matched
 * nor on its length, nor on which token it is. The access file is read again when it changes (checked every
 * {@link #RELOAD_EVERY}, as a mounted Secret is updated in place); a file that does not parse is refused with a logged
 * reason and the principals before it stay. Each reload is audited.
 */
final class BearerTokens implements AutoCloseable {
    static final Duration RELOAD_EVERY = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(BearerTokens.class);
    private static final String SCHEME = "bearer ";

    private record Known(byte[] digest, Principal principal) {
    }

    /** Told of each read of the access file: 200 when its principals apply, 400 when it was refused, and why. */
    interface Reloads {
        void read(int status, String outcome);
    }

    private final List<Known> admins;
    private final Path accessFile;
    private final Reloads reloads;
    private final Counter reloaded;
    private final Counter refused;
    private volatile List<Known> known;
    private byte[] fileDigest = new byte[0];
    private final ScheduledExecutorService watcher;

    /**
     * Reads the access file now: a file that does not parse stops the start ({@link ConfigException}).
     *
     * @param reloads told of each read of the access file, for the audit trail
     */
    BearerTokens(ApiAccess access, Reloads reloads, MeterRegistry registry) {
        this.admins = access.authTokens().stream().map(token -> {
            byte[] digest = sha256(token);
            return new Known(digest, Principal.everywhere(
                    "admin-" + HexFormat.of().formatHex(digest).substring(0, 8), Role.ADMIN));
        }).toList();
        this.accessFile = access.accessFile();
        this.reloads = reloads;
        this.reloaded = Counter.builder("millrace_gateway_access_reloads_total").tag("outcome", "loaded")
                .description("Reads of access-file, by outcome").register(registry);
        this.refused = Counter.builder("millrace_gateway_access_reloads_total").tag("outcome", "refused")
                .description("Reads of access-file, by outcome").register(registry);
        this.known = admins;
        if (accessFile == null) {
            watcher = null;
            return;
        }
        String problem = reload();
        if (problem != null) {
            throw new ConfigException("Unable to use access-file " + accessFile + ": " + problem);
        }
        watcher = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("access-file").factory());
        watcher.scheduleWithFixedDelay(this::reloadIfChanged, RELOAD_EVERY.toMillis(), RELOAD_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Whether no token is configured: the API is open. */
    boolean isEmpty() {
        return accessFile == null && admins.isEmpty();
    }

    /** The principal whose token an {@code Authorization} header value presents ({@code Bearer <token>}), if any. */
    Optional<Principal> principal(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return Optional.empty();
        }
        byte[] presented = sha256(authorization.substring(SCHEME.length()).trim());
        Principal found = null;
        for (Known token : known) {
            if (MessageDigest.isEqual(token.digest(), presented)) {
                found = token.principal();
            }
        }
        return Optional.ofNullable(found);
    }

    /** Reads the access file again if its bytes changed since the last read. */
    synchronized void reloadIfChanged() {
        try {
            if (!Arrays.equals(sha256(Files.readAllBytes(accessFile)), fileDigest)) {
                String problem = reload();
                if (problem != null) {
                    LOG.error("access-file {} was changed and is refused, the principals read before stay: {}",
                            accessFile, problem);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("Unable to read access-file {}; the principals read before stay", accessFile, e);
        }
    }

    /** Reads the access file; the reason it was refused, or null when its principals now apply. */
    private synchronized String reload() {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(accessFile);
        } catch (IOException e) {
            return record("unable to read it (" + e.getClass().getSimpleName() + ")");
        }
        fileDigest = sha256(bytes);
        Map<String, Principal> principals;
        try {
            principals = AccessFile.parse(new String(bytes, StandardCharsets.UTF_8));
        } catch (AccessFile.InvalidAccessFile e) {
            return record(e.getMessage());
        }
        var all = new ArrayList<>(admins);
        principals.forEach((digest, principal) -> all.add(new Known(HexFormat.of().parseHex(digest), principal)));
        known = List.copyOf(all);
        reloaded.increment();
        long names = principals.values().stream().map(Principal::name).distinct().count();
        LOG.info("access-file {} read: {} principals, {} tokens", accessFile, names, principals.size());
        reloads.read(200, names + " principals");
        return null;
    }

    private String record(String problem) {
        refused.increment();
        reloads.read(400, problem);
        return problem;
    }

    /** Whether {@code presented} is {@code expected}, in time that tells nothing of where they differ. */
    static boolean sameSecret(String presented, String expected) {
        return presented != null && expected != null && MessageDigest.isEqual(sha256(presented), sha256(expected));
    }

    private static byte[] sha256(String token) {
        return sha256(token.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-256", e);
        }
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.shutdownNow();
        }
    }
}
