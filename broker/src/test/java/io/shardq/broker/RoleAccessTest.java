package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A role's privileges are PostgreSQL's answer, asked once per destination and cache period. */
@PgTest
class RoleAccessTest {

    @Test
    void require_asksPostgreSQLOncePerDestination_untilTheCachePeriodHasPassed(TestDatabase db) throws Exception {
        String role = "access_" + UUID.randomUUID().toString().substring(0, 8);
        try (var c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE ROLE \"" + role + "\" LOGIN");
        }
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            Admin admin = broker.admin();
            admin.queues().create("access.q", QueueOptions.DEFAULTS);
            admin.grants().grant("access.q", role, Privilege.SEND);
            AtomicLong now = new AtomicLong();
            RoleAccess access =
                    new RoleAccess(role, Engines.of(broker).dataSource(), TimeUnit.SECONDS.toNanos(10), now::get);

            for (int i = 0; i < 1000; i++) { // the hot path: one query, not one per message
                access.require("access.q", Privilege.SEND);
            }
            assertThat(access.queries()).isEqualTo(1);
            assertThatThrownBy(() -> access.require("access.q", Privilege.RECEIVE))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("user \"" + role + "\" may not receive from destination \"access.q\"")
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.SECURITY);
            assertThat(access.queries()).isEqualTo(1);

            admin.grants().revoke("access.q", role, Privilege.SEND);
            access.require("access.q", Privilege.SEND); // still cached: PostgreSQL is asked again later
            now.addAndGet(TimeUnit.SECONDS.toNanos(10));
            assertThatThrownBy(() -> access.require("access.q", Privilege.SEND))
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.SECURITY);
            assertThat(access.queries()).isEqualTo(2);

            assertThatThrownBy(() -> access.require("access.missing", Privilege.SEND))
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.UNKNOWN_DESTINATION);
            RoleAccess.full().require("access.missing", Privilege.ADMINISTER); // the pool's role: no check
            assertThat(broker.access(null)).isSameAs(RoleAccess.full());
            assertThat(broker.access(db.user())).isSameAs(RoleAccess.full());
        } finally {
            try (var c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP OWNED BY \"" + role + "\"");
                s.execute("DROP ROLE \"" + role + "\"");
            }
        }
    }
}
