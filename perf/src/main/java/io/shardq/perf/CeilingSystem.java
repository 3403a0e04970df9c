package io.shardq.perf;

import java.util.List;
import javax.sql.DataSource;

/**
 * The ceiling: a plain multi-row INSERT per batch into an indexed table, and no dequeue at all.
 * No PostgreSQL queue can enqueue faster on the same server, so ShardQ's enqueue rate is reported
 * as a fraction of this one.
 */
class CeilingSystem implements QueueSystem {
    static final String NAME = "ceiling";

    /** The table every row goes to (set up by {@link #setUp}). */
    protected ReferenceTable table;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void setUp(DataSource dataSource, Settings settings) throws Exception {
        table = new ReferenceTable(dataSource, name());
        table.recreate(settings.persistent());
    }

    @Override
    public Producer producer() throws Exception {
        ReferenceTable t = table;
        return t::insert;
    }

    @Override
    public boolean consumes() {
        return false;
    }

    /** Every row inserted: nothing ever leaves the ceiling's table. */
    @Override
    public long backlog() throws Exception {
        return table.count();
    }

    @Override
    public List<String> tables() {
        return List.of(table.qualifiedName());
    }

    @Override
    public void tearDown() throws Exception {
        if (table != null) {
            table.drop();
        }
    }
}
