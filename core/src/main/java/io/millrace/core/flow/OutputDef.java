package io.millrace.core.flow;

/** A flow-level output: rendered once the execution's tasks are done. */
public record OutputDef(String id, String type, Object value) {
}
