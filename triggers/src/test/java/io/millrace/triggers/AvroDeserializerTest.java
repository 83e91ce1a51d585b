package io.millrace.triggers;

import static io.millrace.triggers.SchemaRegistryStandIn.wireFormat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.HttpTargets;
import io.millrace.triggers.Deserializers.LookupException;
import io.millrace.triggers.Deserializers.SerdeException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecordBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * AVRO records in Confluent's wire format, read through the schema registry client against
 * {@link SchemaRegistryStandIn}, a stand-in for a Confluent-compatible registry (not Confluent's server).
 */
class AvroDeserializerTest {
    private static final Schema USER_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "User", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]}""");
    private static final Schema USER_V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "User", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
              {"name": "email", "type": ["null", "string"], "default": null}]}""");

    private static final HttpTargets STANDALONE = HttpTargets.forStandalone(MillraceConfig.defaults());

    private SchemaRegistryStandIn registry;
    private SchemaRegistries registries;

    @BeforeEach
    void start() throws Exception {
        registry = new SchemaRegistryStandIn().register(1, USER_V1).register(2, USER_V2);
        registries = new SchemaRegistries();
    }

    @AfterEach
    void stop() {
        registries.close();
        registry.close();
    }

    private Deserializers.Deserializer avro(Map<String, Object> serdeProperties) {
        return Deserializers.of("AVRO", serdeProperties, registries);
    }

    private Deserializers.Deserializer avro() {
        return avro(Map.of("schema.registry.url", registry.url()));
    }

    private static byte[] user(Schema schema, int id, long userId, String name) {
        var user = new GenericRecordBuilder(schema).set("id", userId).set("name", name);
        if (schema.getField("email") != null) {
            user.set("email", name.toLowerCase() + "@example.com");
        }
        return wireFormat(id, schema, user.build());
    }

    @Test
    void shouldReadEachRecordWithTheWriterSchemaItsIdNames() throws Exception {
        // given: records written with two versions of a schema
        Deserializers.Deserializer avro = avro();

        // when
        Object first = avro.read(user(USER_V1, 1, 7, "Ada"));
        Object second = avro.read(user(USER_V2, 2, 8, "Grace"));

        // then
        assertThat(first).isEqualTo(Map.of("id", 7L, "name", "Ada"));
        assertThat(second).isEqualTo(Map.of("id", 8L, "name", "Grace", "email", "grace@example.com"));
        assertThat(avro.read(null)).isNull();
    }

    @Test
    void shouldAskTheRegistryOnceForEachSchemaId() throws Exception {
        // given
        Deserializers.Deserializer keys = avro();
        Deserializers.Deserializer values = avro();

        // when: four records of id 1, one of id 2, read by two deserializers of the same registry
        for (int i = 0; i < 4; i++) {
            (i % 2 == 0 ? keys : values).read(user(USER_V1, 1, i, "u" + i));
        }
        values.read(user(USER_V2, 2, 9, "Linus"));

        // then
        assertThat(registry.requests()).isEqualTo(2);
    }

    @Test
    void shouldAskAgainForASchemaTheBoundedCacheLetGo() throws Exception {
        // given: a cache of one schema
        try (var small = new SchemaRegistries(1, SchemaRegistries.CONNECT_TIMEOUT, SchemaRegistries.REQUEST_TIMEOUT,
                STANDALONE)) {
            Deserializers.Deserializer avro = Deserializers.of("AVRO", Map.of("schema.registry.url", registry.url()), small);

            // when
            avro.read(user(USER_V1, 1, 1, "a"));
            avro.read(user(USER_V1, 1, 2, "b"));
            avro.read(user(USER_V2, 2, 3, "c"));
            avro.read(user(USER_V1, 1, 4, "d"));

            // then: id 1, id 2, then id 1 again
            assertThat(registry.requests()).isEqualTo(3);
        }
    }

    @Test
    void shouldAskWithTheCredentialsOfBasicAuthUserInfo() throws Exception {
        // given
        registry.requireBasicAuth("reader", "s3cr:et");
        var withCredentials = new HashMap<String, Object>(Map.of("schema.registry.url", registry.url() + "/",
                "basic.auth.credentials.source", "USER_INFO", "basic.auth.user.info", "reader:s3cr:et"));

        // when
        LookupException refused = catchThrowableOfType(LookupException.class, () -> avro().read(user(USER_V1, 1, 1, "a")));
        Object read = avro(withCredentials).read(user(USER_V1, 1, 1, "a"));

        // then
        assertThat(refused).hasMessageContaining("answered 401").hasMessageContaining("Unauthorized");
        assertThat(read).isEqualTo(Map.of("id", 1L, "name", "a"));
        assertThat(SchemaRegistries.Registry.of(withCredentials).toString()).isEqualTo(registry.url())
                .doesNotContain("s3cr");
    }

    @Test
    void shouldFailTheLookupNotTheRecordWhenTheRegistryAnswers404() throws Exception {
        // given: a record of a schema id the registry does not have yet
        Deserializers.Deserializer avro = avro();
        byte[] record = user(USER_V1, 42, 1, "a");

        // when
        LookupException failed = catchThrowableOfType(LookupException.class, () -> avro.read(record));
        registry.register(42, USER_V1);
        Object readLater = avro.read(record);

        // then: the failure says what failed, and is not cached
        assertThat(failed).hasMessage("Expected schema registry " + registry.url() + " to answer schema id 42 with HTTP 200, "
                + "but it answered 404: '{\"error_code\":40403,\"message\":\"Schema 42 not found\"}'");
        assertThat(readLater).isEqualTo(Map.of("id", 1L, "name", "a"));
        assertThat(registry.requests()).isEqualTo(2);
    }

    @Test
    void shouldFailTheLookupWhenTheRegistryIsDownUnreachableOrSlow() throws Exception {
        // given
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        byte[] record = user(USER_V1, 1, 1, "a");

        // when: a registry that answers 503, one nobody listens for, and one slower than the request timeout
        registry.answerEveryRequestWith(503);
        LookupException down = catchThrowableOfType(LookupException.class, () -> avro().read(record));
        LookupException unreachable = catchThrowableOfType(LookupException.class,
                () -> avro(Map.of("schema.registry.url", "http://127.0.0.1:" + closedPort)).read(record));
        registry.answerEveryRequestWith(0);
        registry.answerAfter(Duration.ofSeconds(2));
        LookupException slow;
        try (var impatient = new SchemaRegistries(10, Duration.ofSeconds(1), Duration.ofMillis(200), STANDALONE)) {
            slow = catchThrowableOfType(LookupException.class,
                    () -> Deserializers.of("AVRO", Map.of("schema.registry.url", registry.url()), impatient).read(record));
        }

        // then
        assertThat(down).hasMessageContaining("answered 503");
        assertThat(unreachable).hasMessageStartingWith("Expected schema registry http://127.0.0.1:" + closedPort
                + " to answer for schema id 1, but it is unreachable: java.net.ConnectException");
        assertThat(slow).hasMessageContaining("unreachable").hasMessageContaining("HttpTimeoutException");
    }

    @Test
    void shouldAskTheCheckedAddressAndNeverARegistryTheRulesRefuse() throws Exception {
        // given: a worker role's rules, which refuse this machine; a name pinned to the address it resolved to
        byte[] record = SchemaRegistryStandIn.wireFormat(1, USER_V1, new GenericRecordBuilder(USER_V1)
                .set("id", 1L).set("name", "Ada").build());
        String byName = registry.url().replace("127.0.0.1", "localhost");

        // when
        LookupException refused;
        try (var role = new SchemaRegistries(HttpTargets.forRole(MillraceConfig.defaults()))) {
            refused = catchThrowableOfType(LookupException.class,
                    () -> Deserializers.of("AVRO", Map.of("schema.registry.url", registry.url()), role).read(record));
        }
        Object read = avro(Map.of("schema.registry.url", byName)).read(record);

        // then
        assertThat(refused).hasMessageContaining("is not allowed: it is this machine")
                .hasMessageContaining("task-http-allow");
        assertThat(read).isNotNull();
        assertThat(registry.requests()).isEqualTo(1);
    }

    @Test
    void shouldFindBytesThatAreNotInTheWireFormatUnreadableWithoutAskingTheRegistry() {
        // given
        Deserializers.Deserializer avro = avro();
        byte[] wrongMagic = user(USER_V1, 1, 1, "a");
        wrongMagic[0] = 1;
        byte[] truncatedDatum = Arrays.copyOf(user(USER_V1, 1, 1, "abcdef"), 10);

        // when / then
        assertThat(catchThrowableOfType(SerdeException.class, () -> avro.read(wrongMagic)))
                .hasMessageEndingWith("but got magic byte 1");
        assertThat(catchThrowableOfType(SerdeException.class, () -> avro.read(new byte[] {0, 0, 0})))
                .hasMessageEndingWith("but got 3 bytes");
        assertThat(catchThrowableOfType(SerdeException.class, () -> avro.read(new byte[0])))
                .hasMessageEndingWith("but got 0 bytes");
        assertThat(registry.requests()).isZero();
        assertThat(catchThrowableOfType(SerdeException.class, () -> avro.read(truncatedDatum)))
                .hasMessageStartingWith("Not Avro of schema id 1 (shop.User): ");
    }

    @Test
    void shouldFindRecordsOfASchemaThatIsNotAvroUnreadableAndRememberIt() {
        // given
        registry.register(3, "PROTOBUF", "syntax = \"proto3\"; message User { int64 id = 1; }");
        Deserializers.Deserializer avro = avro();
        byte[] record = new byte[] {0, 0, 0, 0, 3, 8, 1};

        // when
        SerdeException first = catchThrowableOfType(SerdeException.class, () -> avro.read(record));
        SerdeException second = catchThrowableOfType(SerdeException.class, () -> avro.read(record));

        // then
        assertThat(first).hasMessage("Expected schema id 3 of " + registry.url() + " to be an AVRO schema, but it is PROTOBUF");
        assertThat(second).hasMessage(first.getMessage());
        assertThat(registry.requests()).isEqualTo(1);
    }
}
