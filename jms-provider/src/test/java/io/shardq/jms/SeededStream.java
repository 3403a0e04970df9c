package io.shardq.jms;

import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SplittableRandom;

/**
 * {@code size} bytes generated from a seed, as a stream: a body of any size without a file or an
 * array of that size. {@link #sha256} is the digest the receiving side must find.
 */
final class SeededStream extends InputStream {
    private final SplittableRandom random;
    private final long size;
    private long produced;
    private long word;
    private int left;

    SeededStream(long seed, long size) {
        this.random = new SplittableRandom(seed);
        this.size = size;
    }

    @Override
    public int read() {
        if (produced == size) {
            return -1;
        }
        if (left == 0) {
            word = random.nextLong();
            left = 8;
        }
        int b = (int) (word & 0xFF);
        word >>>= 8;
        left--;
        produced++;
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (produced == size) {
            return -1;
        }
        int n = (int) Math.min(len, size - produced);
        int i = 0;
        while (i < n && left > 0) {
            b[off + i++] = (byte) read();
        }
        while (n - i >= 8) { // whole words, low byte first, as read() gives them
            long w = random.nextLong();
            for (int k = 0; k < 8; k++) {
                b[off + i + k] = (byte) (w >>> (8 * k));
            }
            i += 8;
            produced += 8;
        }
        while (i < n) {
            b[off + i++] = (byte) read();
        }
        return n;
    }

    /** The SHA-256 of the bytes of {@code new SeededStream(seed, size)}. */
    static byte[] sha256(long seed, long size) {
        MessageDigest d = digest();
        byte[] buf = new byte[64 * 1024];
        try (SeededStream s = new SeededStream(seed, size)) {
            int n;
            while ((n = s.read(buf, 0, buf.length)) > 0) {
                d.update(buf, 0, n);
            }
        }
        return d.digest();
    }

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An OutputStream that only digests and counts what is written to it. */
    static final class DigestSink extends OutputStream {
        final MessageDigest digest = digest();
        long count;

        @Override
        public void write(int b) {
            digest.update((byte) b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            digest.update(b, off, len);
            count += len;
        }
    }

    @Override
    public void close() {}
}
