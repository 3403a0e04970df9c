package io.shardq.cli;

import static io.shardq.cli.CliRunner.assertOneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** grant, revoke, grants: output, the privileges they leave in PostgreSQL, and bad input. */
@PgTest
class GrantCommandsTest {
    @TempDir
    Path tmp;

    TestDatabase db;
    CliRunner cli;
    String role;
    String queue; // one per test: the tests of a class run in parallel on one database

    @BeforeEach
    void setUp(TestDatabase db) throws Exception {
        this.db = db;
        this.cli = new CliRunner(db, tmp);
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        role = "cli_" + suffix; // roles are cluster-wide
        queue = "grants." + suffix;
        try (var c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE \"" + role + "\" LOGIN");
        }
        assertThat(cli.run("queue", "create", queue).exit()).isZero();
    }

    @AfterEach
    void dropRole() throws Exception {
        try (var c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("DROP OWNED BY \"" + role + "\"");
            s.execute("DROP ROLE \"" + role + "\"");
        }
    }

    private long holds(String privilege) {
        return cli.queryLong(
                "select count(*) from shardq.destination d where d.name = ?" + " and shardq.has_privilege(?, d.id, ?)",
                queue,
                role,
                privilege);
    }

    @Test
    void grant_revoke_grants_changeAndShowThePrivilegesInPostgreSQL() {
        CliRunner.Run none = cli.run("grants", queue);
        assertThat(none.exit()).as(none.err()).isZero();
        assertThat(none.out()).isEqualTo("no grants on queue " + queue + ": only its owner may use it\n");

        CliRunner.Run g = cli.run("grant", queue, role, "receive");
        assertThat(g.exit()).as(g.err()).isZero();
        assertThat(g.out()).isEqualTo("granted receive on queue " + queue + " to " + role + "\n");
        assertThat(cli.run("grant", queue, role, "SEND").exit()).isZero();
        assertThat(holds("receive")).isEqualTo(1);
        assertThat(holds("send")).isEqualTo(1);
        assertThat(holds("administer")).isZero();

        CliRunner.Run table = cli.run("grants", queue);
        assertThat(table.out())
                .startsWith("ROLE")
                .containsPattern(role + "\\s+browse")
                .containsPattern(role + "\\s+receive")
                .containsPattern(role + "\\s+send");
        JsonNode json = cli.run("grants", queue, "--json").json();
        assertThat(json.get("queue").asText()).isEqualTo(queue);
        assertThat(json.get("grants")).hasSize(3);
        assertThat(json.get("grants").get(0).get("role").asText()).isEqualTo(role);
        assertThat(json.get("grants").get(0).get("privilege").asText()).isEqualTo("browse");

        CliRunner.Run r = cli.run("revoke", queue, role, "receive");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("revoked receive on queue " + queue + " from " + role + "\n");
        assertThat(holds("receive")).isZero();
        assertThat(holds("browse")).isZero(); // receive includes browse: revoking takes both
        assertThat(holds("send")).isEqualTo(1);
        assertThat(cli.run("grants", queue, "--json").json().get("grants")).hasSize(1);
    }

    @Test
    void aRoleThatAdministersTheQueue_butDoesNotOwnTheSchema_grantsAndLists_othersAreRefused() throws Exception {
        Path pw = Files.writeString(tmp.resolve("role-pw"), "role-pw\n");
        try (var c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("ALTER ROLE \"" + role + "\" PASSWORD 'role-pw'");
        }
        List<String> asRole = List.of("--jdbc-url", db.jdbcUrl(), "--user", role, "--password-file", pw.toString());

        CliRunner.Run noUsage = CliRunner.runBare(with(asRole, "grants", queue));
        assertOneLineError(noUsage);
        assertThat(noUsage.exit()).isEqualTo(2);
        assertThat(noUsage.err()).contains("permission denied for schema shardq");

        assertThat(cli.run("grant", queue, role, "browse").exit()).isZero();
        CliRunner.Run notAdmin = CliRunner.runBare(with(asRole, "grant", queue, role, "send"));
        assertOneLineError(notAdmin);
        assertThat(notAdmin.exit()).isEqualTo(2);
        assertThat(notAdmin.err())
                .contains("role \"" + role + "\" may not grant privileges on destination \"" + queue + "\"")
                .contains("administer");
        assertThat(holds("send")).isZero();

        assertThat(cli.run("grant", queue, role, "administer").exit()).isZero();
        CliRunner.Run granted = CliRunner.runBare(with(asRole, "grant", queue, role, "send"));
        assertThat(granted.exit()).as(granted.err()).isZero();
        assertThat(holds("send")).isEqualTo(1);
        CliRunner.Run listed = CliRunner.runBare(with(asRole, "grants", queue, "--json"));
        assertThat(listed.exit()).as(listed.err()).isZero();
        assertThat(listed.json().get("grants")).hasSize(3); // administer, browse, send
        CliRunner.Run unknown = CliRunner.runBare(with(asRole, "grants", "ordrs"));
        assertThat(unknown.err()).contains("queue \"ordrs\" does not exist");
    }

    private static String[] with(List<String> connection, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(connection);
        return all.toArray(String[]::new);
    }

    @Test
    void badInput_isOneLineNamingTheValueAndWhatIsAllowed_andChangesNothing() {
        CliRunner.Run unknownQueue = cli.run("grant", "ordrs", role, "send");
        assertOneLineError(unknownQueue);
        assertThat(unknownQueue.exit()).isEqualTo(2);
        assertThat(unknownQueue.err()).contains("queue \"ordrs\" does not exist");

        CliRunner.Run unknownRole = cli.run("grant", queue, "no_such_role_x", "send");
        assertOneLineError(unknownRole);
        assertThat(unknownRole.exit()).isEqualTo(2);
        assertThat(unknownRole.err())
                .contains("role \"no_such_role_x\" does not exist")
                .contains("PostgreSQL role");

        CliRunner.Run injected = cli.run("grant", queue, "x\"; drop table shardq.destination; --", "send");
        assertOneLineError(injected);
        assertThat(injected.err()).contains("does not exist");

        CliRunner.Run unknownPrivilege = cli.run("revoke", queue, role, "eat");
        assertOneLineError(unknownPrivilege);
        assertThat(unknownPrivilege.exit()).isEqualTo(2);
        assertThat(unknownPrivilege.err())
                .contains("privilege \"eat\" is invalid: expected send, receive, browse or administer");

        CliRunner.Run badName = cli.run("grants", "a;b");
        assertOneLineError(badName);
        assertThat(badName.exit()).isEqualTo(2);

        CliRunner.Run missingArg = cli.run("grant", queue, role);
        assertOneLineError(missingArg);
        assertThat(missingArg.exit()).isEqualTo(2);

        assertThat(cli.run("grants", queue, "--json").json().get("grants")).isEmpty();
        assertThat(cli.queryLong("select count(*) from shardq.destination")).isGreaterThan(0);
    }
}
