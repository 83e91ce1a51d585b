package io.millrace.gateway;

import java.util.Locale;

/**
 * What a principal may do in the namespaces of a grant, each role all that the one before may and more:
 * {@code viewer} reads flows, executions and logs; {@code runner} also starts, kills, pauses, resumes, restarts and
 * replays executions; {@code editor} also deploys and deletes flows; {@code admin} also makes the cluster-wide calls
 * (the audit trail), when granted on every namespace.
 */
enum Role {
    VIEWER, RUNNER, EDITOR, ADMIN;

    /** Whether this role allows what {@code needed} allows. */
    boolean allows(Role needed) {
        return compareTo(needed) >= 0;
    }

    /** The role's name as the access file and messages write it. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role named {@code label}, or null. */
    static Role of(String label) {
        for (Role role : values()) {
            if (role.label().equals(label)) {
                return role;
            }
        }
        return null;
    }
}
