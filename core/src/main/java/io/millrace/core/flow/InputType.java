package io.millrace.core.flow;

/** Input types understood by the engine, with Kestra's names. */
public enum InputType {
    STRING, INT, FLOAT, BOOLEAN, JSON, DATETIME, DATE, TIME, DURATION, ARRAY, ENUM, SELECT, SECRET, URI, EMAIL
}
