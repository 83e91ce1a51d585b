package io.millrace.worker;

import io.millrace.core.expression.SecretException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Secrets from a folder ({@code secrets-dir}), one file a secret, as Kubernetes mounts a Secret as a volume: the file's
 * name is the secret's name, its content the value, UTF-8 text taken exactly as it is (a trailing line break is part of
 * the value). Names are compared ignoring case, as for {@link EnvSecrets}; files whose name starts with a dot
 * (Kubernetes' {@code ..data}) are not secrets. A file is read each time it is asked for, so a rotated Secret is seen
 * by the next task run. A file larger than {@value #MAX_BYTES} bytes (Kubernetes' limit for a whole Secret) is refused.
 */
final class DirSecrets {
    static final int MAX_BYTES = 1024 * 1024;

    private final Path dir;

    /** @param dir a folder: checked by {@link WorkerSecrets#of} */
    DirSecrets(Path dir) {
        this.dir = dir;
    }

    /** The value of the secret {@code name}, a name {@link WorkerSecrets} checked; empty when no file holds it. */
    Optional<String> value(String name) throws SecretException {
        Path file = dir.resolve(name);
        if (!file.getParent().equals(dir) || !Files.isRegularFile(file)) {
            Optional<Path> other = ignoringCase(name);
            if (other.isEmpty()) {
                return Optional.empty();
            }
            file = other.get();
        }
        return Optional.of(read(name, file));
    }

    private Optional<Path> ignoringCase(String name) throws SecretException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String fileName = file.getFileName().toString();
                if (!fileName.startsWith(".") && fileName.equalsIgnoreCase(name) && Files.isRegularFile(file)) {
                    found.add(file);
                }
            }
        } catch (IOException e) {
            throw new SecretException("Unable to list secrets-dir " + dir + " for the secret '" + name + "': "
                    + io.millrace.worker.task.Failures.kind(e));
        }
        if (found.size() > 1) {
            throw new SecretException("Expected one file for the secret '" + name + "' in secrets-dir " + dir
                    + ", but " + found.size() + " names differ only in case");
        }
        return found.stream().findFirst();
    }

    private String read(String name, Path file) throws SecretException {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (IOException e) {
            throw new SecretException("Unable to read the secret '" + name + "' from secrets-dir " + dir + ": "
                    + io.millrace.worker.task.Failures.kind(e));
        }
        if (bytes.length > MAX_BYTES) {
            throw new SecretException("Expected the secret '" + name + "' in secrets-dir " + dir + " to be at most "
                    + MAX_BYTES + " bytes, but its file is larger");
        }
        try {
            return StrictUtf8.decode(bytes);
        } catch (CharacterCodingException e) {
            throw new SecretException("Expected the secret '" + name + "' in secrets-dir " + dir + " to be UTF-8 text,"
                    + " but its file is not");
        }
    }
}
