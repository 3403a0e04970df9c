package io.shardq.perf;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The payload layout every system carries unchanged: bytes 0-7 the send time in epoch
 * microseconds ({@link MicroClock}), bytes 8-15 a sequence number unique within a step, then
 * random filler (random so nothing compresses it away).
 */
public final class Payloads {
    /** Bytes taken by the stamp; the smallest payload allowed. */
    public static final int HEADER_BYTES = 16;

    private Payloads() {}

    /** Random bytes of the given size, used as the template of one producer's payloads. */
    static byte[] filler(int size, long seed) {
        byte[] b = new byte[size];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < size; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        return b;
    }

    /** A copy of the template with the send time and sequence number written into its header. */
    static byte[] stamped(byte[] template, long sentMicros, long sequence) {
        byte[] p = Arrays.copyOf(template, template.length);
        ByteBuffer.wrap(p).putLong(0, sentMicros).putLong(8, sequence);
        return p;
    }

    /** The send time stamped into a payload, in epoch microseconds. */
    public static long sentMicros(byte[] payload) {
        return ByteBuffer.wrap(payload).getLong(0);
    }

    /** The sequence number stamped into a payload. */
    public static long sequence(byte[] payload) {
        return ByteBuffer.wrap(payload).getLong(8);
    }
}
