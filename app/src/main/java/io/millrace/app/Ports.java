package io.millrace.app;

import io.millrace.config.ConfigException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;

/**
 * Checks, before a role starts anything, that the ports it will listen on are free, so that a port in use is one
 * clear line naming it and the setting that moves it rather than a stack trace from deep in a server. What takes a
 * port between this check and the role's own bind still fails, with the server's own message.
 */
final class Ports {
    /** How the management port is chosen. */
    static final String MANAGEMENT = "--set management-port=<port>";

    private Ports() {
    }

    /**
     * @param ports each port to listen on (0: any free one, not checked) by the option or setting that chooses it
     * @throws ConfigException naming the first port in use
     */
    static void requireFree(Map<String, Integer> ports) {
        ports.forEach((setting, port) -> {
            if (port != 0 && !free(port)) {
                throw new ConfigException("Port " + port + " is already in use by another process: stop it, or"
                        + " choose another port with " + setting);
            }
        });
    }

    private static boolean free(int port) {
        try (var socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }
}
