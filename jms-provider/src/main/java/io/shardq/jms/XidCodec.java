package io.shardq.jms;

import java.util.Arrays;
import java.util.Base64;
import javax.transaction.xa.Xid;

/**
 * An {@link Xid} as a PostgreSQL global transaction id and back: {@code shardq:<format id>:<base64
 * gtrid>:<base64 bqual>}, at most 196 characters for the largest Xid (64-byte gtrid and bqual),
 * under PostgreSQL's 199. The prefix lets {@code XAResource.recover} return only ShardQ's prepared
 * transactions of the database, not the application's own (pgjdbc's, which use no prefix).
 */
final class XidCodec {
    static final String PREFIX = "shardq:";

    private XidCodec() {}

    static String gid(Xid xid) {
        Base64.Encoder b64 = Base64.getEncoder();
        return PREFIX + xid.getFormatId() + ":" + b64.encodeToString(xid.getGlobalTransactionId()) + ":"
                + b64.encodeToString(xid.getBranchQualifier());
    }

    /** The Xid of one of our gids; null for a gid that is not ours or not well formed. */
    static Xid xid(String gid) {
        if (gid == null || !gid.startsWith(PREFIX)) {
            return null;
        }
        String[] parts = gid.substring(PREFIX.length()).split(":", -1);
        if (parts.length != 3) {
            return null;
        }
        try {
            Base64.Decoder b64 = Base64.getDecoder();
            return new SimpleXid(Integer.parseInt(parts[0]), b64.decode(parts[1]), b64.decode(parts[2]));
        } catch (IllegalArgumentException e) {
            return null; // not a gid ShardQ made
        }
    }

    /** A recovered Xid: equal to any Xid with the same three parts. */
    record SimpleXid(int formatId, byte[] gtrid, byte[] bqual) implements Xid {
        @Override
        public int getFormatId() {
            return formatId;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return gtrid.clone();
        }

        @Override
        public byte[] getBranchQualifier() {
            return bqual.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Xid x
                    && x.getFormatId() == formatId
                    && Arrays.equals(x.getGlobalTransactionId(), gtrid)
                    && Arrays.equals(x.getBranchQualifier(), bqual);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * formatId + Arrays.hashCode(gtrid)) + Arrays.hashCode(bqual);
        }

        @Override
        public String toString() {
            return "Xid(" + formatId + ", " + Base64.getEncoder().encodeToString(gtrid) + ", "
                    + Base64.getEncoder().encodeToString(bqual) + ")";
        }
    }
}
