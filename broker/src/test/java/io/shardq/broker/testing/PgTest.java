package io.shardq.broker.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a real PostgreSQL and hands it a fresh database through a
 * {@link TestDatabase} parameter (constructor, lifecycle or test method). See {@link PgExtension}
 * for how the server is chosen.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(PgExtension.class)
public @interface PgTest {}
