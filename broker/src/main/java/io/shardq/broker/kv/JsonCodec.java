package io.shardq.broker.kv;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/** {@link Codec#json}: one Jackson mapper, one type. */
final class JsonCodec<T> implements Codec<T> {
    private final ObjectMapper mapper;
    private final Class<T> type;

    JsonCodec(ObjectMapper mapper, Class<T> type) {
        this.mapper = mapper;
        this.type = type;
    }

    @Override
    public byte[] encode(T value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write " + value.getClass().getName() + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public T decode(byte[] bytes) {
        try {
            return mapper.readValue(bytes, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot read a " + type.getName() + " from JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read a " + type.getName() + " from JSON: " + e, e);
        }
    }

    @Override
    public String describe() {
        return "JSON " + type.getSimpleName();
    }
}
