package io.shardq.broker;

import io.shardq.broker.catalog.Names;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The privileges part of {@link Admin}: grant, revoke and list who may do what with a destination
 * ({@code shardq.grant}, {@code shardq.revoke}, {@code shardq.grants}). The database enforces the
 * rules (the caller needs the administer privilege; revoking receive or browse takes both); this
 * class checks the names first, so a bad role or destination name fails with a clear message
 * before any SQL runs.
 */
public final class GrantAdmin {
    private final AdminSql sql;

    GrantAdmin(AdminSql sql) {
        this.sql = sql;
    }

    /**
     * Grants {@code role} (an existing PostgreSQL role) a privilege on the destination: {@code
     * shardq.grant}. The caller (this pool's role) needs the administer privilege on it.
     */
    public void grant(String name, String role, Privilege privilege) {
        Names.checkDestination(name);
        sql.call(
                Query.ADMIN_GRANT,
                "granting " + privilege.sqlName() + " on " + name,
                name,
                checkRole(role),
                privilege.sqlName());
    }

    /** Revokes a privilege ({@code shardq.revoke}); revoking receive or browse takes both. */
    public void revoke(String name, String role, Privilege privilege) {
        Names.checkDestination(name);
        sql.call(
                Query.ADMIN_REVOKE,
                "revoking " + privilege.sqlName() + " on " + name,
                name,
                checkRole(role),
                privilege.sqlName());
    }

    /** Who may do what with the destination (its owner, who may do everything, is not listed). */
    public List<Admin.Grant> list(String name) {
        Names.checkDestination(name);
        List<Admin.Grant> out = new ArrayList<>();
        try (Connection c = sql.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.ADMIN_SELECT_GRANTS))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Admin.Grant(rs.getString(1), Privilege.parse(rs.getString(2))));
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading the grants of " + name);
        }
        return out;
    }

    private static String checkRole(String role) {
        if (role == null || role.isBlank() || role.length() > 63) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "role name \"" + io.shardq.broker.message.Texts.cut(String.valueOf(role), 120)
                            + "\" is invalid: expected the name of an existing PostgreSQL role (1 to 63 characters)");
        }
        return role;
    }
}
