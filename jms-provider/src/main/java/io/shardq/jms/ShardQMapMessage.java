package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.MessageFormatException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message whose body is a set of named values: boolean, byte, short, char, int, long, float,
 * double, String, byte[] or null. Read with the MapMessage conversion table (the property table
 * plus char, readable only as char or String, and byte[], readable only as byte[]). byte[] values
 * are copied in and out.
 */
public class ShardQMapMessage extends ShardQMessage implements MapMessage {
    private static final String KIND = "map item";

    private final Map<String, Object> map = new LinkedHashMap<>();

    ShardQMapMessage() {}

    @Override
    public boolean getBoolean(String name) throws JMSException {
        return Conversions.toBoolean(map.get(name), KIND, name);
    }

    @Override
    public byte getByte(String name) throws JMSException {
        return Conversions.toByte(map.get(name), KIND, name);
    }

    @Override
    public short getShort(String name) throws JMSException {
        return Conversions.toShort(map.get(name), KIND, name);
    }

    @Override
    public char getChar(String name) throws JMSException {
        return Conversions.toChar(map.get(name), KIND, name);
    }

    @Override
    public int getInt(String name) throws JMSException {
        return Conversions.toInt(map.get(name), KIND, name);
    }

    @Override
    public long getLong(String name) throws JMSException {
        return Conversions.toLong(map.get(name), KIND, name);
    }

    @Override
    public float getFloat(String name) throws JMSException {
        return Conversions.toFloat(map.get(name), KIND, name);
    }

    @Override
    public double getDouble(String name) throws JMSException {
        return Conversions.toDouble(map.get(name), KIND, name);
    }

    @Override
    public String getString(String name) throws JMSException {
        return Conversions.toText(map.get(name), KIND, name);
    }

    @Override
    public byte[] getBytes(String name) throws JMSException {
        return Conversions.toBytes(map.get(name), KIND, name);
    }

    /** The value as stored (a copy for byte[]), or null when missing or null. */
    @Override
    public Object getObject(String name) {
        Object v = map.get(name);
        return v instanceof byte[] b ? b.clone() : v;
    }

    @Override
    public Enumeration<String> getMapNames() {
        return Collections.enumeration(new ArrayList<>(map.keySet()));
    }

    @Override
    public void setBoolean(String name, boolean value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setByte(String name, byte value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setShort(String name, short value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setChar(String name, char value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setInt(String name, int value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setLong(String name, long value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setFloat(String name, float value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setDouble(String name, double value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setString(String name, String value) throws JMSException {
        put(name, value);
    }

    /** Stores a copy of the array, or null. */
    @Override
    public void setBytes(String name, byte[] value) throws JMSException {
        put(name, value == null ? null : value.clone());
    }

    @Override
    public void setBytes(String name, byte[] value, int offset, int length) throws JMSException {
        checkBodyWritable();
        if (offset < 0 || length < 0 || offset > value.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length
                    + " are out of range for an array of " + value.length + " bytes");
        }
        byte[] copy = new byte[length];
        System.arraycopy(value, offset, copy, 0, length);
        put(name, copy);
    }

    /**
     * Sets a Boolean, Byte, Short, Character, Integer, Long, Float, Double, String, byte[] (copied)
     * or null.
     *
     * @throws MessageFormatException for any other class
     */
    @Override
    public void setObject(String name, Object value) throws JMSException {
        checkBodyWritable();
        if (value != null && !isItemType(value)) {
            throw new MessageFormatException("map item \"" + name + "\" cannot hold a "
                    + value.getClass().getName()
                    + ": expected Boolean, Byte, Short, Character, Integer, Long, Float, Double, String or byte[]");
        }
        put(name, value instanceof byte[] b ? b.clone() : value);
    }

    @Override
    public boolean itemExists(String name) {
        return map.containsKey(name);
    }

    private void put(String name, Object value) throws JMSException {
        checkBodyWritable();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("map item name must not be null or empty");
        }
        map.put(name, value);
    }

    static boolean isItemType(Object value) {
        return isPropertyType(value) || value instanceof Character || value instanceof byte[];
    }

    /** The live map, for the codec: byte[] values are not copied. */
    Map<String, Object> items() {
        return map;
    }

    /** A copy of the map (byte[] values copied too), or null when it is empty. */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        if (map.isEmpty()) {
            return null;
        }
        if (!isBodyAssignableTo(c)) {
            throw notAssignable("java.util.Map", c);
        }
        Map<String, Object> copy = new LinkedHashMap<>(map);
        copy.replaceAll((k, v) -> v instanceof byte[] b ? b.clone() : v);
        return c.cast(copy);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return map.isEmpty() || (c != null && c.isAssignableFrom(Map.class));
    }

    @Override
    void doClearBody() {
        map.clear();
    }

    @Override
    BrokerMessage.BodyType bodyType() {
        return BrokerMessage.BodyType.MAP;
    }
}
