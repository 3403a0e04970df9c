package io.shardq.jms;

import io.shardq.broker.ShardQException;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.TransactionRolledBackException;

/** Translates the engine's {@link ShardQException} into the JMS exception of the right type, in one place. */
final class Exceptions {
    private Exceptions() {}

    static JMSException translate(RuntimeException e) {
        if (!(e instanceof ShardQException se)) {
            if (e instanceof IllegalArgumentException) {
                return link(new MessageFormatException(e.getMessage()), e);
            }
            return link(new JMSException(String.valueOf(e.getMessage())), e);
        }
        JMSException j =
                switch (se.kind()) {
                    case UNKNOWN_DESTINATION, INVALID_NAME, DESTINATION_EXISTS ->
                        new InvalidDestinationException(
                                se.getMessage(), se.kind().name());
                    case INVALID_SELECTOR ->
                        new InvalidSelectorException(se.getMessage(), se.kind().name());
                    case ROLLED_BACK ->
                        new TransactionRolledBackException(
                                se.getMessage(), se.kind().name());
                    case ILLEGAL_STATE ->
                        new IllegalStateException(se.getMessage(), se.kind().name());
                    case CLIENT_ID_IN_USE ->
                        new jakarta.jms.InvalidClientIDException(
                                se.getMessage(), se.kind().name());
                    case SECURITY ->
                        new jakarta.jms.JMSSecurityException(
                                se.getMessage(), se.kind().name());
                    case RESOURCE_EXHAUSTED ->
                        new jakarta.jms.ResourceAllocationException(
                                se.getMessage(), se.kind().name());
                    default -> new JMSException(se.getMessage(), se.kind().name());
                };
        return link(j, se);
    }

    static boolean isConnectionLoss(RuntimeException e) {
        return e instanceof ShardQException se
                && (se.kind() == io.shardq.broker.ErrorKind.CONNECTION
                        || se.kind() == io.shardq.broker.ErrorKind.IN_DOUBT);
    }

    private static JMSException link(JMSException j, Exception cause) {
        j.setLinkedException(cause);
        j.initCause(cause);
        return j;
    }

    /**
     * For the simplified API: the unchecked twin of a JMSException, by the list of JMS 3.1's
     * runtime exceptions: IllegalState, InvalidClientID, InvalidDestination, InvalidSelector,
     * JMSSecurity, MessageFormat, MessageNotWriteable, ResourceAllocation, TransactionInProgress and
     * TransactionRolledBack each map to their RuntimeException; anything else to JMSRuntimeException.
     */
    static JMSRuntimeException unchecked(JMSException e) {
        JMSRuntimeException r;
        if (e instanceof InvalidDestinationException) {
            r = new jakarta.jms.InvalidDestinationRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof InvalidSelectorException) {
            r = new jakarta.jms.InvalidSelectorRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof jakarta.jms.InvalidClientIDException) {
            r = new jakarta.jms.InvalidClientIDRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof jakarta.jms.JMSSecurityException) {
            r = new jakarta.jms.JMSSecurityRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof TransactionRolledBackException) {
            r = new jakarta.jms.TransactionRolledBackRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof jakarta.jms.TransactionInProgressException) {
            r = new jakarta.jms.TransactionInProgressRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof IllegalStateException) {
            r = new jakarta.jms.IllegalStateRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof MessageFormatException) {
            r = new jakarta.jms.MessageFormatRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof jakarta.jms.MessageNotWriteableException) {
            r = new jakarta.jms.MessageNotWriteableRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else if (e instanceof jakarta.jms.ResourceAllocationException) {
            r = new jakarta.jms.ResourceAllocationRuntimeException(e.getMessage(), e.getErrorCode(), e);
        } else {
            // MessageEOFException, MessageNotReadableException and plain JMSException have no runtime
            // twin in JMS 3.1: JMSRuntimeException, with the checked one as its cause
            r = new JMSRuntimeException(e.getMessage(), e.getErrorCode(), e);
        }
        return r;
    }

    static IllegalStateException closed(String what) {
        return new IllegalStateException("the " + what + " is closed");
    }
}
