package io.shardq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.BrokerMessage.BodyType;
import io.shardq.broker.message.TextBody;
import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The JSON form of a message, one per line in the files {@code queue drain} writes and {@code
 * queue load} reads, and the {@code message} of {@code queue browse --json}.
 *
 * <pre>{@code
 * {"messageId":"ID:…","bodyType":"TEXT","timestamp":1763890000000,"correlationId":null,
 *  "type":null,"replyTo":null,"priority":4,"expiration":0,"deliverAt":0,"persistent":true,
 *  "properties":{"attempt":{"type":"int","value":5}},"body":"héllo"}
 * }</pre>
 *
 * <p>Properties keep their JMS type ({@code boolean byte short int long float double string});
 * NaN and infinities of float/double are written as the strings {@code "NaN"}, {@code
 * "Infinity"}, {@code "-Infinity"}. The body is the text for TEXT (null for a null text: {@link
 * TextBody}, the encoding the JMS layer uses), base64 for every other body type. A TEXT body
 * that is not valid UTF-8 (never written by the JMS layer) goes to {@code bodyBase64} instead,
 * so nothing is ever lost in the conversion. A streamed body (issue 12) is shown by browse as its
 * size, {@code "bodyStreamed"}, without a body; drain refuses such a message (its file would need
 * the body).
 */
final class MessageJson {
    private static final Set<String> FIELDS = Set.of(
            "messageId",
            "bodyType",
            "timestamp",
            "correlationId",
            "type",
            "replyTo",
            "priority",
            "expiration",
            "deliverAt",
            "persistent",
            "properties",
            "body",
            "bodyBase64");

    private MessageJson() {}

    static ObjectNode toJson(BrokerMessage m) {
        ObjectNode o = Json.object();
        o.put("messageId", m.messageId());
        o.put("bodyType", m.bodyType().name());
        o.put("timestamp", m.timestamp());
        o.put("correlationId", m.correlationId());
        o.put("type", m.type());
        o.put("replyTo", m.replyTo());
        o.put("priority", m.priority());
        o.put("expiration", m.expiration());
        o.put("deliverAt", m.deliverAt());
        o.put("persistent", m.persistent());
        ObjectNode props = o.putObject("properties");
        for (Map.Entry<String, Object> e : m.properties().entrySet()) {
            ObjectNode p = props.putObject(e.getKey());
            Object v = e.getValue();
            p.put("type", typeName(v));
            if (v instanceof Boolean b) {
                p.put("value", b);
            } else if (v instanceof Byte || v instanceof Short || v instanceof Integer) {
                p.put("value", ((Number) v).intValue());
            } else if (v instanceof Long l) {
                p.put("value", l);
            } else if (v instanceof Float f) {
                if (f.isNaN() || f.isInfinite()) {
                    p.put("value", f.toString());
                } else {
                    p.put("value", f);
                }
            } else if (v instanceof Double d) {
                if (d.isNaN() || d.isInfinite()) {
                    p.put("value", d.toString());
                } else {
                    p.put("value", d);
                }
            } else {
                p.put("value", v.toString());
            }
        }
        if (m.streamedBody() != null) {
            o.put("bodyStreamed", m.streamedBody().size()); // its size: the body itself is not shown
            return o;
        }
        byte[] body = m.body();
        if (m.bodyType() == BodyType.TEXT) {
            try {
                o.put("body", TextBody.decodeStrict(body)); // null for a null text
            } catch (CharacterCodingException e) {
                o.put("bodyBase64", Base64.getEncoder().encodeToString(body));
            }
        } else {
            o.put("body", Base64.getEncoder().encodeToString(body));
        }
        return o;
    }

    /**
     * Reads a message; fields left out take the JMS defaults (a new message id, priority 4,
     * persistent, no expiry). Throws {@link IllegalArgumentException} saying which field is wrong.
     */
    static BrokerMessage fromJson(JsonNode n) {
        return fromJson(n, 0);
    }

    /** As {@link #fromJson(JsonNode)}, with {@code defaultTimestamp} when the line has no {@code timestamp}. */
    static BrokerMessage fromJson(JsonNode n, long defaultTimestamp) {
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new IllegalArgumentException("unknown field \"" + f + "\": expected one of " + FIELDS);
            }
        }
        BodyType bodyType = bodyType(n.get("bodyType"));
        String messageId = n.has("messageId") ? text(n, "messageId") : "ID:" + UUID.randomUUID();
        long priority = number(n, "priority", 4);
        if (priority < 0 || priority > 9) {
            throw new IllegalArgumentException("\"priority\" is " + priority + ": expected 0 to 9");
        }
        JsonNode persistent = n.get("persistent");
        if (persistent != null && !persistent.isBoolean()) {
            throw new IllegalArgumentException("\"persistent\" must be true or false");
        }
        return new BrokerMessage(
                messageId,
                bodyType,
                number(n, "timestamp", defaultTimestamp),
                text(n, "correlationId"),
                text(n, "type"),
                text(n, "replyTo"),
                (int) priority,
                number(n, "expiration", 0),
                number(n, "deliverAt", 0),
                persistent == null || persistent.booleanValue(),
                properties(n.get("properties")),
                body(n, bodyType));
    }

    /** A line without {@code bodyType} is a text message: {@code {"body": "text"}} is a whole line. */
    private static BodyType bodyType(JsonNode v) {
        if (v == null) {
            return BodyType.TEXT;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException(
                    "\"bodyType\" must be a string: one of NONE, TEXT, BYTES, MAP, STREAM, OBJECT");
        }
        try {
            return BodyType.valueOf(v.textValue());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("\"bodyType\" is \"" + v.textValue()
                    + "\": expected one of NONE, TEXT, BYTES, MAP, STREAM, OBJECT");
        }
    }

    private static byte[] body(JsonNode n, BodyType bodyType) {
        JsonNode raw = n.get("bodyBase64");
        JsonNode body = n.get("body");
        if (raw != null && body != null) {
            throw new IllegalArgumentException("give either \"body\" or \"bodyBase64\", not both");
        }
        if (raw != null) {
            return base64(raw, "bodyBase64");
        }
        if (body == null) {
            return new byte[0];
        }
        if (bodyType == BodyType.TEXT) {
            if (!body.isNull() && !body.isTextual()) {
                throw new IllegalArgumentException("\"body\" of a TEXT message must be a string or null (a line"
                        + " without \"bodyType\" is TEXT; put JSON in a string, or give \"bodyType\" and base64)");
            }
            return TextBody.encode(body.isNull() ? null : body.textValue());
        }
        return base64(body, "body");
    }

    private static byte[] base64(JsonNode v, String field) {
        if (!v.isTextual()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a base64 string");
        }
        try {
            return Base64.getDecoder().decode(v.textValue());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("\"" + field + "\" is not valid base64: " + e.getMessage());
        }
    }

    private static Map<String, Object> properties(JsonNode props) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (props == null || props.isNull()) {
            return out;
        }
        if (!props.isObject()) {
            throw new IllegalArgumentException("\"properties\" must be an object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), property(e.getKey(), e.getValue()));
        }
        return out;
    }

    private static Object property(String name, JsonNode p) {
        String where = "property \"" + name + "\"";
        if (!p.isObject() || !p.path("type").isTextual() || !p.has("value")) {
            throw new IllegalArgumentException(where + " must look like {\"type\":\"int\",\"value\":5}");
        }
        String type = p.get("type").textValue();
        JsonNode v = p.get("value");
        return switch (type) {
            case "boolean" -> {
                if (!v.isBoolean()) {
                    throw new IllegalArgumentException(where + " is a boolean: expected true or false");
                }
                yield v.booleanValue();
            }
            case "byte" -> (byte) integral(v, Byte.MIN_VALUE, Byte.MAX_VALUE, where);
            case "short" -> (short) integral(v, Short.MIN_VALUE, Short.MAX_VALUE, where);
            case "int" -> (int) integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE, where);
            case "long" -> integral(v, Long.MIN_VALUE, Long.MAX_VALUE, where);
            case "float" -> Float.parseFloat(decimal(v, where));
            case "double" -> Double.parseDouble(decimal(v, where));
            case "string" -> {
                if (!v.isTextual()) {
                    throw new IllegalArgumentException(where + " is a string: expected a JSON string");
                }
                yield v.textValue();
            }
            default ->
                throw new IllegalArgumentException(where + " has type \"" + type
                        + "\": expected boolean, byte, short, int, long, float, double or string");
        };
    }

    private static long integral(JsonNode v, long min, long max, String where) {
        if (!v.isIntegralNumber()) {
            throw new IllegalArgumentException(where + ": expected a whole number from " + min + " to " + max);
        }
        BigInteger b = v.bigIntegerValue();
        if (b.compareTo(BigInteger.valueOf(min)) < 0 || b.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new IllegalArgumentException(where + " is " + b + ": expected " + min + " to " + max);
        }
        return b.longValue();
    }

    /** The exact decimal text of a number, or NaN/Infinity/-Infinity given as strings. */
    private static String decimal(JsonNode v, String where) {
        if (v.isNumber()) {
            return v.isBigDecimal() ? v.decimalValue().toString() : v.asText();
        }
        if (v.isTextual() && Set.of("NaN", "Infinity", "-Infinity").contains(v.textValue())) {
            return v.textValue();
        }
        throw new IllegalArgumentException(where + ": expected a number, or \"NaN\", \"Infinity\", \"-Infinity\"");
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a string or null");
        }
        return v.textValue();
    }

    private static long number(JsonNode n, String field, long absent) {
        JsonNode v = n.get(field);
        if (v == null) {
            return absent;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a whole number");
        }
        return v.longValue();
    }

    private static String typeName(Object v) {
        if (v instanceof Boolean) {
            return "boolean";
        } else if (v instanceof Byte) {
            return "byte";
        } else if (v instanceof Short) {
            return "short";
        } else if (v instanceof Integer) {
            return "int";
        } else if (v instanceof Long) {
            return "long";
        } else if (v instanceof Float) {
            return "float";
        } else if (v instanceof Double) {
            return "double";
        }
        return "string";
    }
}
