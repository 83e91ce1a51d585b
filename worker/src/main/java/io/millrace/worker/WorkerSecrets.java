package io.millrace.worker;

import io.millrace.core.expression.SecretException;
import io.millrace.core.expression.SecretSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where {@code secret('NAME')} finds a value on this worker: the environment variable {@code SECRET_<NAME>}
 * ({@link EnvSecrets}) first, then the file {@code NAME} in {@code secrets-dir} ({@link DirSecrets}), when set.
 * A name is letters, digits, {@code _}, {@code -} and {@code .}, not starting with a dot, at most
 * {@value #MAX_NAME_CHARS} characters (what Kubernetes allows as a Secret's key), so no name reaches outside the
 * folder. Thread-safe.
 */
final class WorkerSecrets implements SecretSource {
    static final int MAX_NAME_CHARS = 253;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]*");

    private final EnvSecrets environment;
    private final Optional<DirSecrets> dir;

    private WorkerSecrets(EnvSecrets environment, Optional<DirSecrets> dir) {
        this.environment = environment;
        this.dir = dir;
    }

    /**
     * @param environment the process's environment (only {@code SECRET_*} variables are kept)
     * @param dir {@code secrets-dir}: must be a folder when set
     */
    static WorkerSecrets of(Map<String, String> environment, Optional<Path> dir) {
        dir.ifPresent(path -> {
            if (!Files.isDirectory(path)) {
                throw new IllegalArgumentException("Expected secrets-dir " + path + " to be a folder the worker can"
                        + " read, but it is not" + (Files.exists(path) ? "" : " (it does not exist)"));
            }
        });
        return new WorkerSecrets(new EnvSecrets(environment),
                dir.map(path -> new DirSecrets(path.toAbsolutePath().normalize())));
    }

    @Override
    public String value(String name) throws SecretException {
        if (name.length() > MAX_NAME_CHARS || !NAME.matcher(name).matches()) {
            throw new SecretException("Expected a secret's name of letters, digits, '_', '-' and '.', not starting with"
                    + " '.', at most " + MAX_NAME_CHARS + " characters, but got '" + shorten(name) + "'");
        }
        Optional<String> value = environment.value(name);
        if (value.isEmpty() && dir.isPresent()) {
            value = dir.get().value(name);
        }
        return value.orElseThrow(() -> new SecretException("Expected a secret named '" + name + "', but there is none:"
                + " this worker has no environment variable " + EnvSecrets.variableOf(name)
                + (dir.isPresent() ? " and no file '" + name + "' in its secrets-dir" : " and no secrets-dir")));
    }

    private static String shorten(String name) {
        return name.length() <= 60 ? name : name.substring(0, 57) + "...";
    }
}
