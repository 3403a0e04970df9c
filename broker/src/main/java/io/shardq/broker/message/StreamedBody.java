package io.shardq.broker.message;

/**
 * Where a streamed body is stored: its id in {@code shardq.large_body} and its size in bytes. A
 * message whose body was streamed ({@link BrokerMessage#streamedBody()}) carries only this; the
 * bytes are chunks in {@code shardq.large_body_chunk}, written in the sending transaction and read
 * one chunk at a time ({@code Broker#openBody}). Pure data: it can be cached with the message's
 * metadata, and it tells nothing about whether the body is still stored (it goes when the message's
 * slice is retired or purged).
 *
 * @param id the body's id (a value of the sequence {@code shardq.large_body_id})
 * @param size the body's length in bytes
 */
public record StreamedBody(long id, long size) {
    public StreamedBody {
        if (size < 0) {
            throw new IllegalArgumentException("streamed body size " + size + " is negative");
        }
    }
}
