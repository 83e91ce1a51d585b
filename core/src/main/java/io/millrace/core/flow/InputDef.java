package io.millrace.core.flow;

/** A flow input: {@code type} is one of {@link InputType}; {@code defaults} may be null. */
public record InputDef(String id, InputType type, boolean required, Object defaults, String description) {
}
