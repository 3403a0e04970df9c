package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import java.io.Serializable;
import org.junit.jupiter.api.Test;

class ShardQTextMessageTest {

    private final ShardQTextMessage message = new ShardQTextMessage();

    @Test
    void getText_returnsNull_whenNeverSet() {
        assertThat(message.getText()).isNull();
    }

    @Test
    void setText_throwsMessageNotWriteable_whenReadOnly() {
        message.markReadOnly();

        assertThatThrownBy(() -> message.setText("x"))
                .isInstanceOf(MessageNotWriteableException.class)
                .hasMessageContaining("clearBody()");
    }

    @Test
    void clearBody_emptiesAndMakesWritable_whenReadOnly() throws Exception {
        message.setText("hello");
        message.markReadOnly();

        message.clearBody();
        assertThat(message.getText()).isNull();
        message.setText("again");

        assertThat(message.getText()).isEqualTo("again");
    }

    @Test
    void getBody_returnsText_forStringAndSupertypes() throws Exception {
        message.setText("hello");

        assertThat(message.getBody(String.class)).isEqualTo("hello");
        assertThat(message.getBody(Object.class)).isEqualTo("hello");
        assertThat(message.getBody(CharSequence.class)).isEqualTo("hello");
        assertThat(message.getBody(Serializable.class)).isEqualTo("hello");
        assertThat(message.isBodyAssignableTo(Comparable.class)).isTrue();
    }

    @Test
    void getBody_throwsMessageFormatException_whenTypeNotAssignable() throws Exception {
        message.setText("hello");

        assertThat(message.isBodyAssignableTo(Integer.class)).isFalse();
        assertThatThrownBy(() -> message.getBody(Integer.class))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> message.getBody(byte[].class)).isInstanceOf(MessageFormatException.class);
    }

    @Test
    void getBody_returnsNull_forAnyType_whenTextNull() throws Exception {
        assertThat(message.getBody(Integer.class)).isNull();
        assertThat(message.isBodyAssignableTo(Integer.class)).isTrue();
    }

    @Test
    void getBody_returnsEmptyString_whenTextEmpty() throws Exception {
        message.setText("");

        assertThat(message.getBody(String.class)).isEmpty();
    }
}
