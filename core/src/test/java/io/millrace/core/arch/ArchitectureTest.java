package io.millrace.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The core is plain Java: the decision logic must run without Kafka, Avro or the HTTP layer. */
@AnalyzeClasses(packages = "io.millrace.core", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule shouldNotDependOnKafka = noClasses()
            .that().resideInAPackage("io.millrace.core..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
            .because("the core decides without Kafka; topology wires it to Kafka Streams");

    @ArchTest
    static final ArchRule shouldNotDependOnAvro = noClasses()
            .that().resideInAPackage("io.millrace.core..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.avro..")
            .because("records on the wire are mapped to core types in serdes, not used by the core");

    @ArchTest
    static final ArchRule shouldNotDependOnJavalin = noClasses()
            .that().resideInAPackage("io.millrace.core..")
            .should().dependOnClassesThat().resideInAPackage("io.javalin..")
            .because("HTTP belongs to the api-gateway");
}
