package io.millrace.core.flow;

/** Input types understood by the engine, with Kestra's names. */
public enum InputType {
    STRING, INT, FLOAT, BOOLEAN, JSON, DATETIME, DATE, TIME, DURATION, ARRAY, ENUM, SELECT, MULTISELECT, SECRET, URI, EMAIL;

    /** Whether an input of this type declares its {@code values} to choose from. */
    public boolean hasChoices() {
        return this == ENUM || this == SELECT || this == MULTISELECT;
    }
}
