package io.millrace.gateway;

import java.util.List;

/**
 * Who calls the API, and what it may do where: a role on each namespace prefix it is granted.
 *
 * @param name how the audit trail and refusals name it
 * @param grants its roles by namespace prefix
 */
record Principal(String name, List<Grant> grants) {
    /** Every namespace: the prefix of a grant on all of them. */
    static final String EVERY_NAMESPACE = "*";

    /**
     * A role on a namespace and the namespaces under it ({@code company.team} covers {@code company.team} and
     * {@code company.team.etl}, not {@code company.teams}), or on every namespace ({@value #EVERY_NAMESPACE}).
     */
    record Grant(String prefix, Role role) {
        boolean covers(String namespace) {
            return prefix.equals(EVERY_NAMESPACE) || namespace.equals(prefix) || namespace.startsWith(prefix + ".");
        }
    }

    Principal {
        grants = List.copyOf(grants);
    }

    /** A principal with {@code role} on every namespace. */
    static Principal everywhere(String name, Role role) {
        return new Principal(name, List.of(new Grant(EVERY_NAMESPACE, role)));
    }

    /** Whether it has {@code role} (or more) on {@code namespace}. */
    boolean may(Role role, String namespace) {
        return grants.stream().anyMatch(grant -> grant.role().allows(role) && grant.covers(namespace));
    }

    /** Whether it has {@code role} (or more) on every namespace. */
    boolean mayEverywhere(Role role) {
        return grants.stream().anyMatch(grant -> grant.role().allows(role) && grant.prefix().equals(EVERY_NAMESPACE));
    }

    /** 403 unless it has {@code role} on {@code namespace}; {@code what} says what the role is needed for. */
    void require(Role role, String namespace, String what) {
        if (!may(role, namespace)) {
            throw new ApiException(403, "Principal '" + name + "' has no " + role.label() + " grant on namespace '"
                    + namespace + "', needed " + what, List.of());
        }
    }

    /** 403 unless it has {@code role} on every namespace. */
    void requireEverywhere(Role role, String what) {
        if (!mayEverywhere(role)) {
            throw new ApiException(403, "Principal '" + name + "' has no " + role.label() + " grant on every namespace ("
                    + EVERY_NAMESPACE + "), needed " + what, List.of());
        }
    }
}
