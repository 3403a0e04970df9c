package io.shardq.broker;

/** The one exception the engine throws; {@link #kind()} says what kind of failure it is. */
public class ShardQException extends RuntimeException {
    private final ErrorKind kind;

    public ShardQException(ErrorKind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public ShardQException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public ErrorKind kind() {
        return kind;
    }
}
