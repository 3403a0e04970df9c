package io.shardq.broker.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.shardq.broker.message.BrokerMessage;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code properties} column (jsonb): a message's properties, and its JMSCorrelationID and
 * JMSType under those names, where PostgreSQL can read them (selectors evaluated in SQL, the SQL
 * API's receive). Null for a message that has none of them, so the common message pays nothing.
 *
 * <p>The form is the one {@code R__shardq_selector.sql} reads: strings and booleans as such;
 * integral types as JSON integers; float and double as a JSON number with a fractional part (the
 * double's shortest text, {@code 1.0} not {@code 1}), so PostgreSQL tells a double from a long; a
 * NaN, an infinity or -0.0, which JSON's numbers cannot hold, as {@code {"double": "NaN"}}. A float is written as
 * the double it widens to (0.1f as 0.10000000149011612), the value artemis-selector compares it
 * with. The binary header stays the exact record the JVM reads (HeaderCodec); this is a copy.
 */
public final class PropertiesJson {
    private static final JsonFactory JSON = new JsonFactory();

    /**
     * The column's whole value for a message PostgreSQL's text cannot hold (a U+0000 or an unpaired
     * surrogate in a property's name or value, the correlation id or the type): a selector
     * evaluated in PostgreSQL leaves such a message to the JVM (docs/design/sql-api.md).
     */
    public static final String UNREPRESENTABLE = "JMS_ShardQ_Unrepresentable";

    private PropertiesJson() {}

    /** The column's value, or null when the message has no property, correlation id or type. */
    public static String encode(BrokerMessage m) {
        Map<String, Object> properties = m.properties();
        if (properties.isEmpty() && m.correlationId() == null && m.type() == null) {
            return null;
        }
        if (!representable(m)) {
            return "{\"" + UNREPRESENTABLE + "\": true}";
        }
        StringWriter out = new StringWriter(32 + properties.size() * 24);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            for (Map.Entry<String, Object> e : properties.entrySet()) {
                json.writeFieldName(e.getKey());
                writeValue(json, e.getValue());
            }
            if (m.correlationId() != null) {
                json.writeStringField("JMSCorrelationID", m.correlationId());
            }
            if (m.type() != null) {
                json.writeStringField("JMSType", m.type());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * The properties of a message sent from SQL (header version 3) from its column: strings and
     * booleans as such, a number without a fractional part as a Long, one with a fraction (or
     * {@code {"double": ...}}) as a Double; JMSCorrelationID and JMSType, which the header carries,
     * left out.
     */
    public static Map<String, Object> decode(String json) {
        Map<String, Object> out = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalStateException("the properties column is not a JSON object: " + json);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.getCurrentName();
                JsonToken t = p.nextToken();
                Object v =
                        switch (t) {
                            case VALUE_STRING -> p.getText();
                            case VALUE_TRUE -> Boolean.TRUE;
                            case VALUE_FALSE -> Boolean.FALSE;
                            case VALUE_NUMBER_INT -> p.getLongValue();
                            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                            case START_OBJECT -> special(p);
                            default -> null;
                        };
                if (t == JsonToken.START_ARRAY) {
                    p.skipChildren();
                }
                if (v != null && !name.equals("JMSCorrelationID") && !name.equals("JMSType")) {
                    out.put(name, v);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt properties column", e);
        }
        return out;
    }

    /** {@code {"double": "NaN"}} and the like; anything else is skipped. */
    private static Object special(JsonParser p) throws IOException {
        Object v = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.getCurrentName();
            p.nextToken();
            if (name.equals("double") && p.currentToken() == JsonToken.VALUE_STRING) {
                v = Double.parseDouble(p.getText());
            } else {
                p.skipChildren();
            }
        }
        return v;
    }

    private static boolean representable(BrokerMessage m) {
        for (Map.Entry<String, Object> e : m.properties().entrySet()) {
            if (!representable(e.getKey()) || (e.getValue() instanceof String v && !representable(v))) {
                return false;
            }
        }
        return (m.correlationId() == null || representable(m.correlationId()))
                && (m.type() == null || representable(m.type()));
    }

    /** False for a U+0000 or an unpaired surrogate, which PostgreSQL's text (and jsonb) refuse. */
    static boolean representable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    private static void writeValue(JsonGenerator json, Object v) throws IOException {
        if (v instanceof String s) {
            json.writeString(s);
        } else if (v instanceof Boolean b) {
            json.writeBoolean(b);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d) || Double.doubleToRawLongBits(d) == Long.MIN_VALUE) {
                json.writeStartObject();
                json.writeStringField("double", Double.toString(d));
                json.writeEndObject();
            } else {
                BigDecimal exact = new BigDecimal(Double.toString(d));
                json.writeNumber((exact.scale() <= 0 ? exact.setScale(1) : exact).toPlainString());
            }
        } else if (v instanceof Number n) {
            json.writeNumber(n.longValue());
        } else {
            throw new IllegalArgumentException("property of unsupported type " + (v == null ? "null" : v.getClass()));
        }
    }
}
