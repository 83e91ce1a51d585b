package io.millrace.core.flow;

import java.util.List;

/**
 * A flow input: {@code type} is one of {@link InputType}; {@code defaults} may be null. {@code values} are the choices
 * of a SELECT, ENUM or MULTISELECT input (null for the other types, and for one that declares none: it takes any
 * value); {@code allowCustomValue} lets it take other values too.
 */
public record InputDef(String id, InputType type, boolean required, Object defaults, String description,
        List<String> values, boolean allowCustomValue) {

    public InputDef {
        values = values == null ? null : List.copyOf(values);
    }

    public InputDef(String id, InputType type, boolean required, Object defaults, String description) {
        this(id, type, required, defaults, description, null, false);
    }
}
