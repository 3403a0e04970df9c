package io.shardq.broker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.DestinationInfo;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The boundary rule can fail: each fixture below stands for a class of jms-provider, admin-cli or perf. */
class ApiBoundaryRuleTest {

    @Test
    void rule_fails_whenAnInternalTypeIsUsed() {
        EvaluationResult r = evaluate(UsesCatalog.class);

        assertThat(r.hasViolation()).isTrue();
        assertThat(r.getFailureReport().toString())
                .contains(UsesCatalog.class.getName() + " uses engine internal io.shardq.broker.catalog.Catalog");
    }

    @Test
    void rule_fails_whenAnApiMethodReturningAnInternalTypeIsCalled() {
        EvaluationResult r = evaluate(DropsRuntime.class);

        assertThat(r.hasViolation()).isTrue();
        assertThat(r.getFailureReport().toString())
                .contains(DropsRuntime.class.getName()
                        + " uses engine internal io.shardq.broker.catalog.Catalog through the signature of"
                        + " io.shardq.broker.message.LeakyApiFixture.catalog()");
    }

    @Test
    void rule_passes_whenOnlyTheApiIsUsed() {
        assertThat(evaluate(UsesApi.class).hasViolation()).isFalse();
    }

    private static EvaluationResult evaluate(Class<?> fixture) {
        return ApiBoundary.RULE.evaluate(new ClassFileImporter().importClasses(fixture));
    }

    static final class UsesCatalog {
        Object find(DataSource ds) {
            return new Catalog(ds).find("q");
        }
    }

    static final class DropsRuntime {
        void ensure() {
            io.shardq.broker.message.LeakyApiFixture.catalog();
        }
    }

    static final class UsesApi {
        DestinationInfo ensure(Broker broker, DataSource ds) {
            new Admin(ds).list();
            return broker.requireDestination("q", true);
        }
    }
}
