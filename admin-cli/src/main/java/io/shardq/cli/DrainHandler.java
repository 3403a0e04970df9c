package io.shardq.cli;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code queue drain} does with a batch: write it to its output, and take it back when its
 * transaction rolls back, so each message appears once. A file is truncated to where the batch
 * began. Lines on stdout cannot be taken back: their message ids are remembered instead, and a
 * message received again is not written again (a message without an id would be).
 */
final class DrainHandler implements BatchMover.Handler {
    private final DrainOutput output;
    /** Ids printed to stdout in batches that rolled back and not received and committed since. */
    private final Set<String> printedUncommitted = new HashSet<>();

    private List<BrokerMessage> lastBatch = List.of();
    private List<BrokerMessage> lastWritten = List.of();

    DrainHandler(DrainOutput output) {
        this.output = output;
    }

    @Override
    public void accept(BrokerSession session, List<BrokerMessage> batch) throws IOException {
        for (BrokerMessage m : batch) {
            if (m.streamedBody() != null) {
                // refused before anything of the batch is written: it stays in the queue
                throw new ShardQException(
                        ErrorKind.INVALID_ARGUMENT,
                        "message " + m.messageId() + " has a streamed body of "
                                + m.streamedBody().size()
                                + " bytes, which queue drain does not write to a file; this batch stays in the"
                                + " queue: receive it with a JMS client (JMS_ShardQ_SaveStream), or drain with a"
                                + " --selector that leaves it");
            }
        }
        List<BrokerMessage> fresh = new ArrayList<>(batch.size());
        for (BrokerMessage m : batch) {
            if (m.messageId() == null || !printedUncommitted.contains(m.messageId())) {
                fresh.add(m);
            }
        }
        output.write(fresh);
        lastBatch = batch;
        lastWritten = fresh;
    }

    @Override
    public void rolledBack() throws IOException {
        if (!output.retractLastBatch()) {
            for (BrokerMessage m : lastWritten) {
                if (m.messageId() != null) {
                    printedUncommitted.add(m.messageId());
                }
            }
        }
        lastBatch = List.of();
        lastWritten = List.of();
    }

    @Override
    public void committed() {
        for (BrokerMessage m : lastBatch) {
            if (m.messageId() != null) {
                printedUncommitted.remove(m.messageId());
            }
        }
        lastBatch = List.of();
        lastWritten = List.of();
    }

    /**
     * Messages printed to stdout in a rolled-back batch and not received here again: another
     * consumer may have received them too.
     */
    int printedButNotReceivedAgain() {
        return printedUncommitted.size();
    }
}
